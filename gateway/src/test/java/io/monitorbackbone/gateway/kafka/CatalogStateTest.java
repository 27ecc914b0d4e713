package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CatalogStateTest {

    private static Aggregate folded(long upTo) {
        Aggregate a = Aggregate.EMPTY;
        for (long seq = 1; seq <= upTo; seq++) {
            a = a.apply(seq, Json.object().put("type", "demo.note").put("time", "2026-11-29T18:00:00Z"));
        }
        return a;
    }

    @Test
    void everyPublishedFoldSignalsItsMonitorAndAnOlderOneNeverReplacesANewer() {
        Catalog catalog = new Catalog(8);
        List<String> changed = new ArrayList<>();
        catalog.onStateChanged(changed::add);

        catalog.applyState("m", folded(3));
        catalog.applyState("other", folded(1));
        catalog.applyState("m", folded(2));

        assertThat(changed).containsExactly("m", "other", "m");
        assertThat(catalog.state("m").lastSeq()).isEqualTo(3);
        assertThat(catalog.state("unknown")).isEqualTo(Aggregate.EMPTY);
        catalog.applyState("m", null);
        assertThat(catalog.state("m")).isEqualTo(Aggregate.EMPTY);
    }

    @Test
    void aWaiterIsWokenWhenTheFoldReachesItsSeqAndGivesUpAfterItsTimeout() throws Exception {
        Catalog catalog = new Catalog(8);
        catalog.applyState("m", folded(1));
        CompletableFuture<Aggregate> waiting =
                CompletableFuture.supplyAsync(() -> catalog.awaitState("m", 3, Duration.ofSeconds(30)));

        catalog.applyState("m", folded(2));
        catalog.applyState("m", folded(3));

        assertThat(waiting.get(10, TimeUnit.SECONDS).lastSeq()).isEqualTo(3);
        assertThat(catalog.awaitState("m", 9, Duration.ofMillis(50)).lastSeq())
                .as("serves what it has")
                .isEqualTo(3);
    }

    @Test
    void aMovedCursorSignalsItsMonitorSinceDeliveredCountsAndPullsArePartOfTheState() {
        Catalog catalog = new Catalog(8);
        List<String> changed = new ArrayList<>();
        catalog.onStateChanged(changed::add);
        catalog.apply(new io.monitorbackbone.protocol.Subscription(
                "sub-1",
                "m",
                "agent:r",
                Json.object(),
                List.of("observe"),
                "none",
                "pull",
                null,
                null,
                "2026-11-29T18:00:00.000Z",
                true,
                "hash"));

        catalog.apply("sub-1", io.monitorbackbone.protocol.Cursor.start(1, "2026-11-29T18:00:00.000Z"));
        catalog.apply("sub-unknown", io.monitorbackbone.protocol.Cursor.start(1, "2026-11-29T18:00:00.000Z"));

        assertThat(changed).containsExactly("m");
    }
}
