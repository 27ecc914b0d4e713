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
        MonitorLog log = new MonitorLog(capacity);
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
}
