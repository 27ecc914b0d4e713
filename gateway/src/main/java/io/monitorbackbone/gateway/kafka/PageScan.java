package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import java.util.ArrayList;
import java.util.List;

/**
 * One read's progress over a log, record by record: the page it fills (at most {@code limit} matches, at most
 * {@link #SCAN_LIMIT} records examined), then, when asked, the count of what matches on up to the head (at most
 * {@link #LAG_SCAN_LIMIT} records more). Pure: the records come from the tail or from Kafka, {@link LogReader} decides.
 */
final class PageScan {
    /** How many records one read examines at most for its page before answering with what it has. */
    static final int SCAN_LIMIT = 20_000;
    /**
     * How many records past the page a lag count examines before it stops and says it is a lower bound. Counting to
     * the head on every pull made draining a backlog quadratic (docs/benchmarks.md).
     */
    static final int LAG_SCAN_LIMIT = 1_000;

    private final String monitorId;
    private final Filter filter;
    private final boolean passesEverything;
    private final int limit;
    private final boolean count;
    private final Log.Bounds bounds;
    private final List<Log.Entry> entries = new ArrayList<>();
    private long next;
    private long matched;
    private long examined;
    private long examinedAfterPage;
    private long lastExamined;
    private boolean pageDone;
    private boolean bounded;

    /**
     * What a count found past a page, from the page's {@code next} on: the records it examined, up to and including
     * seq {@code to}, and how many of them matched. The records at or below {@code to} are below the log's last stable
     * offset, so they never change (retention may only drop them): a count from the same seq with the same filter finds
     * the same, and only what was appended since is left to read.
     */
    record Counted(long from, long to, long examined, long matched) {}

    /**
     * @param limit the page's size; 0 for a count only (a lag), which examines at most {@link #LAG_SCAN_LIMIT} records
     *              from {@code start}
     * @param start the first seq this scan will be given (the read's start, at or above the floor)
     */
    PageScan(String monitorId, Filter filter, int limit, boolean count, Log.Bounds bounds, long start) {
        this.monitorId = monitorId;
        this.filter = filter;
        this.passesEverything = filter.passesEverything();
        this.limit = limit;
        this.count = count;
        this.bounds = bounds;
        this.next = bounds.head() + 1;
        this.lastExamined = start - 1;
        if (limit == 0) {
            pageDone = true;
            next = start;
        }
    }

    /**
     * Starts a count only where an earlier count from the same seq stopped ({@code known.from} must be this scan's
     * start): what it examined is taken as examined. Returns the seq to read on from, or -1 when nothing more is needed
     * (the earlier count used the whole budget).
     */
    long continueAfter(Counted known) {
        if (limit != 0 || !count || known.from() != next || examined > 0) {
            throw new IllegalStateException("only a count that has examined nothing continues another");
        }
        examined = known.examined();
        examinedAfterPage = known.examined();
        matched = known.matched();
        lastExamined = known.to();
        if (examinedAfterPage >= LAG_SCAN_LIMIT) {
            bounded = known.to() < bounds.head();
            return -1;
        }
        return known.to() + 1;
    }

    /** What this scan counted past its page, once it is done; null when it did not count, or its page is unfinished. */
    Counted counted() {
        if (!count) {
            return null;
        }
        long from = Math.min(next, bounds.head() + 1);
        return new Counted(from, Math.max(lastExamined, from - 1), examinedAfterPage, matched - entries.size());
    }

    /** Whether what is left is counting records that all match, which needs neither a decode nor a match. */
    boolean countsOnly() {
        return pageDone && passesEverything;
    }

    /** {@link #accept} for a record that {@link #countsOnly} says matches. */
    boolean count(long seq) {
        lastExamined = seq;
        examined++;
        examinedAfterPage++;
        matched++;
        return afterPage(seq);
    }

    /** Takes one record; false once nothing more is needed. */
    boolean accept(long seq, Draft draft) {
        lastExamined = seq;
        examined++;
        if (pageDone) {
            examinedAfterPage++;
        }
        // Building the served form costs more than any match; a filter that passes everything needs none.
        if (passesEverything || filter.matches(draft.served(monitorId, seq, false))) {
            matched++;
            if (!pageDone) {
                entries.add(new Log.Entry(seq, draft));
            }
        }
        if (!pageDone && (entries.size() >= limit || examined >= SCAN_LIMIT)) {
            pageDone = true;
            next = seq + 1;
            if (!count) {
                return false;
            }
        }
        return !pageDone || afterPage(seq);
    }

    private boolean afterPage(long seq) {
        if (examinedAfterPage >= LAG_SCAN_LIMIT) {
            bounded = seq < bounds.head();
            return false;
        }
        return true;
    }

    Log.Page page() {
        return new Log.Page(entries, Math.min(next, bounds.head() + 1), bounds, matched, bounded);
    }
}
