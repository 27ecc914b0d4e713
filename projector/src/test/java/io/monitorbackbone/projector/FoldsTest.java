package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Publications;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fold loop's memory, without Kafka: what it writes is the fold of what it applied, whatever it let go between. */
class FoldsTest {
    private static final long T = MonitorLogs.T0.toEpochMilli();

    private static Draft row(Monitor m, int i) {
        String body = i % 7 == 3
                ? "{\"type\":\"demo.claim.contradiction\",\"subject\":\"s" + (i % 3) + "\"}"
                : "{\"type\":\"demo.v\",\"subject\":\"s" + i + "\",\"actor\":\"probe:p" + (i % 2) + "\"}";
        return Publications.resolve(m, MonitorLogs.body(body), MonitorLogs.T0.plusMillis(i));
    }

    private static String json(Aggregate a) {
        return new String(a.toJson(), StandardCharsets.UTF_8);
    }

    @Test
    void aggregatesLetGoAsJsonBetweenWritesFoldAsThoseHeldThroughout() {
        List<String> ids = List.of("a", "b", "c");
        Map<String, Monitor> monitors = new HashMap<>();
        ids.forEach(id -> monitors.put(id, MonitorLogs.monitor(id, "{\"owner\":\"agent:owner\"}")));
        Folds one = new Folds(1);
        Folds all = new Folds(64);
        Map<String, Aggregate> expected = new HashMap<>();
        for (String id : ids) {
            one.own(id, Aggregate.EMPTY, null, Long.MIN_VALUE);
            all.own(id, Aggregate.EMPTY, null, Long.MIN_VALUE);
            expected.put(id, Aggregate.EMPTY);
        }
        Map<String, String> written = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            for (String id : ids) {
                Draft d = row(monitors.get(id), i);
                one.apply(id, i + 1, d, T + i);
                all.apply(id, i + 1, d, T + i);
                expected.put(id, expected.get(id).apply(id, i + 1, d, T + i));
            }
            if (i % 13 == 0) {
                one.takeChanged().forEach(w -> written.put(w.monitor(), new String(w.json(), StandardCharsets.UTF_8)));
            }
        }
        one.takeChanged().forEach(w -> written.put(w.monitor(), new String(w.json(), StandardCharsets.UTF_8)));
        Map<String, String> heldThroughout = new HashMap<>();
        all.takeChanged().forEach(w -> heldThroughout.put(w.monitor(), new String(w.json(), StandardCharsets.UTF_8)));

        for (String id : ids) {
            assertThat(written.get(id)).as(id).isEqualTo(json(expected.get(id)));
            assertThat(heldThroughout.get(id)).as(id).isEqualTo(json(expected.get(id)));
            assertThat(one.lastSeq(id)).isEqualTo(60);
        }
        assertThat(one.changed()).isZero();
        assertThat(one.takeChanged()).as("nothing changed since the last write").isEmpty();
    }

    @Test
    void aChangeIsCountedOnceUntilWrittenAndARedeliveredSeqChangesNothing() {
        Monitor m = MonitorLogs.monitor("a", "{\"owner\":\"agent:owner\"}");
        Folds folds = new Folds(4);
        folds.own("a", Aggregate.EMPTY, null, Long.MIN_VALUE);

        assertThat(folds.apply("a", 1, row(m, 0), T))
                .as("the first change since the last write")
                .isTrue();
        assertThat(folds.apply("a", 2, row(m, 1), T + 5)).isFalse();
        assertThat(folds.changed()).isEqualTo(1);
        List<Folds.Write> writes = folds.takeChanged();
        assertThat(writes).singleElement().satisfies(w -> {
            assertThat(w.monitor()).isEqualTo("a");
            assertThat(w.timestamp()).as("its latest record's").isEqualTo(T + 5);
        });

        assertThat(folds.apply("a", 2, row(m, 1), T + 5))
                .as("a redelivered seq")
                .isFalse();
        assertThat(folds.changed()).isZero();
    }

    @Test
    void aReleasedMonitorHandsOverItsUnwrittenChangeAndIsNoLongerFolded() {
        Monitor m = MonitorLogs.monitor("a", "{\"owner\":\"agent:owner\"}");
        Folds folds = new Folds(4);
        folds.own("a", Aggregate.EMPTY, null, Long.MIN_VALUE);
        folds.apply("a", 1, row(m, 0), T);

        Folds.Write w = folds.release("a");

        assertThat(w).isNotNull();
        assertThat(Aggregate.fromJson(w.json()).lastSeq()).isEqualTo(1);
        assertThat(folds.changed()).isZero();
        assertThat(folds.owns("a")).isFalse();
        assertThat(folds.release("a")).isNull();
        assertThatThrownBy(() -> folds.apply("a", 2, row(m, 1), T)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMonitorTakenUpFromItsLastStateFoldsOnFromThere() {
        Monitor m = MonitorLogs.monitor("a", "{\"owner\":\"agent:owner\"}");
        Aggregate all = Aggregate.EMPTY;
        Aggregate half = null;
        for (int i = 0; i < 20; i++) {
            all = all.apply("a", i + 1, row(m, i), T + i);
            if (i == 9) {
                half = all;
            }
        }
        Folds folds = new Folds(2);
        folds.own("a", Aggregate.fromJson(half.toJson()), half.toJson(), T + 9);
        // What a loop reads after taking the log up: everything from the state's last seq on, and some before it.
        for (int i = 5; i < 20; i++) {
            folds.apply("a", i + 1, row(m, i), T + i);
        }

        assertThat(new String(folds.takeChanged().get(0).json(), StandardCharsets.UTF_8))
                .isEqualTo(json(all));
    }
}
