package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.Publications;
import io.monitorbackbone.protocol.ServerFault;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** What the writer's timers do: fail what Kafka did not acknowledge in time, and go away once everything was. */
class LogWriterTest {
    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());

    /** {@code n} rows of one publish, as the gateway resolves it. */
    private static List<Draft> drafts(int n) {
        java.time.Instant now = java.time.Instant.parse("2026-12-07T05:00:00Z");
        Monitor monitor = MonitorDefinitions.create(
                        "w", object("{'owner':'human:alice','horizon':'minute'}"), now, false)
                .monitor();
        Draft d = Publications.resolve(monitor, object("{'type':'demo.note','subject':'b','data':{'ok':true}}"), now);
        return java.util.Collections.nCopies(n, d);
    }

    private static ObjectNode object(String json) {
        return (ObjectNode) Json.read(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    private void awaitSent(int n, List<CompletableFuture<Long>> seqs) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(seqs).noneMatch(CompletableFuture::isCompletedExceptionally);
            assertThat(producer.history()).hasSizeGreaterThanOrEqualTo(n);
        });
    }

    @Test
    void aBatchAcknowledgedWholeLeavesNoTimerAndEachRowHasItsSeq() throws Exception {
        LogWriter writer = new LogWriter(producer, 60_000);

        List<CompletableFuture<Long>> seqs = writer.appendAllAsync("w", drafts(3));
        awaitSent(3, seqs);
        assertThat(writer.timersPending()).as("one timer for the batch").isEqualTo(1);
        while (producer.completeNext()) {
            // the broker acknowledges each in order
        }

        assertThat(seqs.get(0).get()).isEqualTo(1);
        assertThat(seqs.get(2).get()).isEqualTo(3);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(writer.timersPending()).isZero());
    }

    @Test
    void rowsNotAcknowledgedInTimeFailAsServerFaultsAndAcknowledgedOnesStand() throws Exception {
        LogWriter writer = new LogWriter(producer, 2_000);

        List<CompletableFuture<Long>> seqs = writer.appendAllAsync("w", drafts(3));
        // Handed over at once, long before the timer (a row still queued when it runs out is never sent).
        await().atMost(Duration.ofSeconds(30)).until(() -> producer.history().size() >= 3);
        assertThat(producer.completeNext()).isTrue();

        assertThat(seqs.get(0).get()).isEqualTo(1);
        for (CompletableFuture<Long> late : seqs.subList(1, 3)) {
            assertThat(late)
                    .failsWithin(Duration.ofSeconds(30))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(ServerFault.class)
                    .withMessageContaining("Kafka did not acknowledge the write to mp.obs.w");
        }
        assertThat(writer.timersPending()).isZero();
    }
}
