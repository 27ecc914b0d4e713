package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * A lag counted on from what the pull before it counted past its page is the lag a count from scratch gives: the same
 * number, the same bound, over logs with and without gaps (transaction markers), behind and at the head, and after
 * more was appended.
 */
class PageScanTest {
    private static final Draft NOTE = new Draft(
            "demo.note", "s", "2026-12-01T12:00:00.000Z", "measured", "probe", "none", "minute", "a", Json.object());

    /** A log's records (their seqs, ascending); the head is the last. */
    private static Log.Bounds bounds(long[] seqs) {
        long head = seqs[seqs.length - 1];
        return new Log.Bounds(head, seqs[0], head);
    }

    /** Runs a scan over the records at or after {@code from}, as LogReader does. */
    private static PageScan run(PageScan scan, long[] seqs, long from) {
        for (long seq : seqs) {
            if (seq >= from && !scan.accept(seq, NOTE)) {
                break;
            }
        }
        return scan;
    }

    private static Log.Page lagFromScratch(long[] seqs, long from) {
        return run(new PageScan("m", Filter.ALL, 0, true, bounds(seqs), from), seqs, from)
                .page();
    }

    private static Log.Page lagContinued(long[] seqs, PageScan.Counted known) {
        PageScan scan = new PageScan("m", Filter.ALL, 0, true, bounds(seqs), known.from());
        long readFrom = scan.continueAfter(known);
        return readFrom < 0 ? scan.page() : run(scan, seqs, readFrom).page();
    }

    private static long[] log(long first, long last, long... missing) {
        List<Long> gaps = LongStream.of(missing).boxed().toList();
        return LongStream.rangeClosed(first, last)
                .filter(s -> !gaps.contains(s))
                .toArray();
    }

    private static void assertSameLag(long[] before, long[] after, long pullFrom, int limit) {
        PageScan pull = run(new PageScan("m", Filter.ALL, limit, true, bounds(before), pullFrom), before, pullFrom);
        Log.Page page = pull.page();
        PageScan.Counted counted = pull.counted();
        assertThat(counted.from()).isEqualTo(page.next());

        Log.Page fresh = lagFromScratch(after, page.next());
        Log.Page continued = lagContinued(after, counted);
        assertThat(continued.counted()).as("lag").isEqualTo(fresh.counted());
        assertThat(continued.countBounded()).as("bounded").isEqualTo(fresh.countBounded());
    }

    @Test
    void farBehindTheCountIsBoundedAndTheSame() {
        long[] log = log(1, 5_000);
        assertSameLag(log, log, 1, 200);
        assertThat(lagFromScratch(log, 201).counted()).isEqualTo(PageScan.LAG_SCAN_LIMIT);
        assertThat(lagFromScratch(log, 201).countBounded()).isTrue();
    }

    @Test
    void withTransactionMarkersInTheCountedStretch() {
        long[] log = log(1, 3_000, 250, 251, 900, 1_199, 1_200, 1_201);
        assertSameLag(log, log, 1, 200);
    }

    @Test
    void nearTheHeadTheCountIsExactAndTheSame() {
        long[] log = log(1, 700, 450);
        assertSameLag(log, log, 1, 200);
        assertThat(lagFromScratch(log, 201).countBounded()).isFalse();
    }

    @Test
    void whatWasAppendedAfterThePullIsCountedOnTop() {
        long[] before = log(1, 700);
        assertSameLag(before, log(1, 760, 730), 1, 200);
        // Enough appended to reach the bound from where the pull's count had stopped at the head.
        assertSameLag(before, log(1, 3_000), 1, 200);
    }

    @Test
    void aPageThatReachesTheHeadLeavesNothingToCountButWhatComesAfter() {
        long[] before = log(1, 150);
        assertSameLag(before, before, 1, 200);
        assertSameLag(before, log(1, 170), 1, 200);
        assertSameLag(log(1, 200), log(1, 230), 1, 200);
    }

    @Test
    void aPullThatDidNotCountLeavesNothingToContinue() {
        long[] log = log(1, 500);
        PageScan pull = run(new PageScan("m", Filter.ALL, 100, false, bounds(log), 1), log, 1);
        assertThat(pull.counted()).isNull();
    }

    @Test
    void theCacheKeepsTheFurthestCountOfAStartAndOneStartPerMonitor() {
        CountsAfterPages counts = new CountsAfterPages(2);
        counts.put("a", new PageScan.Counted(201, 700, 500, 500));
        counts.put("a", new PageScan.Counted(201, 650, 450, 450));
        assertThat(counts.get("a", 201).to()).isEqualTo(700);
        assertThat(counts.get("a", 202)).isNull();
        counts.put("a", new PageScan.Counted(401, 900, 500, 500));
        assertThat(counts.get("a", 201)).isNull();
        counts.put("b", new PageScan.Counted(1, 10, 10, 10));
        counts.put("c", new PageScan.Counted(1, 10, 10, 10));
        assertThat(counts.get("a", 401))
                .as("the least recently used, past the bound")
                .isNull();
        assertThat(counts.get("c", 1)).isNotNull();
    }
}
