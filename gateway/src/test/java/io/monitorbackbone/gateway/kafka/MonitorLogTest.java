package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class MonitorLogTest {
    private static final long APPENDED = 1_795_000_000_000L;

    private static Draft draft(long seq) {
        return new Draft(
                "demo.note",
                "s-" + seq,
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "event",
                "probe:p",
                Json.object());
    }

    private static MonitorLog logOf(int capacity, int records) {
        MonitorLog log = new MonitorLog(capacity, () -> {});
        for (long seq = 1; seq <= records; seq++) {
            log.apply(seq, draft(seq), APPENDED + seq, null);
        }
        return log;
    }

    @Test
    void theTailAnswersOnlyForRangesItHoldsWhole() {
        MonitorLog log = logOf(4, 10);

        assertThat(log.tail(7, 10))
                .extracting(io.monitorbackbone.gateway.service.Log.Entry::seq)
                .containsExactly(7L, 8L, 9L, 10L);
        assertThat(log.tail(8, 9))
                .extracting(io.monitorbackbone.gateway.service.Log.Entry::seq)
                .containsExactly(8L, 9L);
        assertThat(log.tail(6, 10)).as("seq 6 was evicted").isNull();
        assertThat(log.tail(7, 11)).as("seq 11 has not been seen").isNull();
        assertThat(log.tail(11, 10)).as("nothing to read").isEmpty();
    }

    @Test
    void aDisabledTailNeverAnswers() {
        assertThat(logOf(0, 3).tail(1, 3)).isNull();
    }

    @Test
    void anAppendWakesWhoeverTookTheSignalAndReplayedRecordsAreIgnored() {
        MonitorLog log = logOf(4, 2);
        CompletableFuture<Void> signal = log.nextAppend();

        log.apply(2, draft(2), APPENDED + 2, null);
        assertThat(signal).isNotDone();
        log.apply(3, draft(3), APPENDED + 3, null);

        assertThat(signal).isDone();
        assertThat(log.lastSeq()).isEqualTo(3);
    }

    /** What the projector computes: the whole log folded from the start. */
    private static Aggregate projected(long upTo) {
        Aggregate a = Aggregate.EMPTY;
        for (long seq = 1; seq <= upTo; seq++) {
            a = a.apply(seq, draft(seq).served("m", seq, false), Instant.ofEpochMilli(APPENDED + seq));
        }
        return a;
    }

    @Test
    void aLaggingFoldIsBroughtToTheHeadExactlyAsTheProjectorWouldFoldIt() {
        MonitorLog log = logOf(4, 10);

        assertThat(log.foldOnto("m", projected(7), 10)).isEqualTo(projected(10));
        assertThat(log.foldOnto("m", projected(6), 10))
                .as("seq 7..10 are all in the tail")
                .isEqualTo(projected(10));
        assertThat(log.foldOnto("m", projected(8), 9))
                .as("only up to the head asked for")
                .isEqualTo(projected(9));
        assertThat(log.foldOnto("m", projected(10), 10)).isEqualTo(projected(10));
    }

    @Test
    void aFoldThatLagsBeyondTheTailIsNotGuessed() {
        MonitorLog log = logOf(4, 10);

        assertThat(log.foldOnto("m", projected(5), 10)).as("seq 6 was evicted").isNull();
        assertThat(log.foldOnto("m", projected(9), 11))
                .as("seq 11 has not been seen")
                .isNull();
        assertThat(logOf(0, 3).foldOnto("m", projected(2), 3)).as("no tail").isNull();
    }

    @Test
    void aLogIsFollowedOnlyOnceNeededAndLetGoOnlyOnceIdleWithNoHold() {
        java.util.concurrent.atomic.AtomicInteger starts = new java.util.concurrent.atomic.AtomicInteger();
        MonitorLog log = new MonitorLog(4, starts::incrementAndGet);
        assertThat(log.followed()).isFalse();

        log.want();
        log.want();
        assertThat(starts).as("the follower is asked once").hasValue(1);
        long idle = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        assertThat(log.release(System.nanoTime(), idle))
                .as("needed a moment ago")
                .isFalse();

        io.monitorbackbone.gateway.service.Tables.Hold hold = log.hold();
        long muchLater = System.nanoTime() + 2 * idle;
        assertThat(log.release(muchLater, idle)).as("held by a parked pull").isFalse();
        hold.close();
        hold.close();
        assertThat(log.release(muchLater, idle))
                .as("idle since the hold closed, nothing holds it")
                .isTrue();
        assertThat(log.followed()).isFalse();

        log.hold().close();
        assertThat(starts).as("needed again: the follower is asked again").hasValue(2);
    }

    @Test
    void aLetGoTailServesNothingThatAGapCouldHaveSkipped() {
        MonitorLog log = logOf(8, 6);
        log.want();
        assertThat(log.release(Long.MAX_VALUE, 0)).isTrue();

        assertThat(log.tail(5, 6)).as("the tail was dropped").isNull();
        assertThat(log.foldOnto("m", Aggregate.EMPTY.apply("m", 1, draft(1), APPENDED + 1), 6))
                .as("no fold from a tail that was let go")
                .isNull();
        assertThat(log.lastSeq()).as("what was read stays").isEqualTo(6);
        assertThat(log.publishedRecently("s-6")).isTrue();

        // Followed again from further on: seqs 7 to 9 were written while nobody here read the log.
        log.want();
        log.readsFrom(10);
        log.apply(10, draft(10), APPENDED + 10, null);
        log.apply(11, draft(11), APPENDED + 11, null);
        assertThat(log.tail(7, 11)).as("7 to 9 were never read here").isNull();
        assertThat(log.tail(10, 11))
                .extracting(io.monitorbackbone.gateway.service.Log.Entry::seq)
                .containsExactly(10L, 11L);
    }

    @Test
    void aSubjectThisGatewayMarkedIsPublishedRecentlyWithoutReadingTheLog() {
        MonitorLog log = new MonitorLog(4, () -> {});
        log.published("build-1");
        assertThat(log.publishedRecently("build-1")).isTrue();
        assertThat(log.followed()).isFalse();
    }
}
