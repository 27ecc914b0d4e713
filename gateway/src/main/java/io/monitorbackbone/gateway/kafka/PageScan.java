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
    private boolean pageDone;
    private boolean bounded;

    PageScan(String monitorId, Filter filter, int limit, boolean count, Log.Bounds bounds) {
        this.monitorId = monitorId;
        this.filter = filter;
        this.passesEverything = filter.passesEverything();
        this.limit = limit;
        this.count = count;
        this.bounds = bounds;
        this.next = bounds.head() + 1;
    }

    /** Whether what is left is counting records that all match, which needs neither a decode nor a match. */
    boolean countsOnly() {
        return pageDone && passesEverything;
    }

    /** {@link #accept} for a record that {@link #countsOnly} says matches. */
    boolean count(long seq) {
        examined++;
        examinedAfterPage++;
        matched++;
        return afterPage(seq);
    }

    /** Takes one record; false once nothing more is needed. */
    boolean accept(long seq, Draft draft) {
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
