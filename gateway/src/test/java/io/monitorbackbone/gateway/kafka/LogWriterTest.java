package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.gateway.service.Log;
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
import java.util.concurrent.TimeUnit;
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
        return java.util.Collections.nCopies(n, draft("b"));
    }

    private static Draft draft(String subject) {
        java.time.Instant now = java.time.Instant.parse("2026-12-07T05:00:00Z");
        Monitor monitor = MonitorDefinitions.create(
                        "w", object("{'owner':'human:alice','horizon':'minute'}"), now, false)
                .monitor();
        return Publications.resolve(
                monitor, object("{'type':'demo.note','subject':'" + subject + "','data':{'ok':true}}"), now);
    }

    private static ObjectNode object(String json) {
        return (ObjectNode) Json.read(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    private void awaitSent(int n) {
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(producer.history()).hasSizeGreaterThanOrEqualTo(n));
    }

    @Test
    void aBatchAcknowledgedWholeLeavesNoTimerAndEachRowHasItsSeq() throws Exception {
        LogWriter writer = new LogWriter(producer, 60_000);

        CompletableFuture<Log.Appended> written = writer.appendAllAsync("w", drafts(3));
        awaitSent(3);
        assertThat(writer.timersPending()).as("one timer for the batch").isEqualTo(1);
        assertThat(producer.completeNext()).isTrue();
        assertThat(producer.completeNext()).isTrue();
        assertThat(written).as("answered only once every row is settled").isNotDone();
        assertThat(producer.completeNext()).isTrue();

        Log.Appended seqs = written.get(30, TimeUnit.SECONDS);
        assertThat(seqs.failures()).containsOnlyNulls();
        assertThat(seqs.seqs()).containsExactly(1, 2, 3);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(writer.timersPending()).isZero());
    }

    @Test
    void rowsNotAcknowledgedInTimeFailAsServerFaultsAndAcknowledgedOnesStand() throws Exception {
        LogWriter writer = new LogWriter(producer, 2_000);

        CompletableFuture<Log.Appended> written = writer.appendAllAsync("w", drafts(3));
        // Handed over at once, long before the timer (a row still queued when it runs out is never sent).
        awaitSent(3);
        assertThat(producer.completeNext()).isTrue();

        Log.Appended seqs = written.get(30, TimeUnit.SECONDS);
        assertThat(seqs.failure(0)).isNull();
        assertThat(seqs.seq(0)).isEqualTo(1);
        for (int late = 1; late < 3; late++) {
            assertThat(seqs.failure(late))
                    .isInstanceOf(ServerFault.class)
                    .hasMessageContaining("Kafka did not acknowledge the write to mp.obs.w")
                    .hasMessageContaining("no acknowledgement within 2000 ms");
        }
        assertThat(writer.timersPending()).isZero();
        // An acknowledgement after the timer changes nothing the caller was told.
        assertThat(producer.completeNext()).isTrue();
        assertThat(seqs.failure(1)).isInstanceOf(ServerFault.class);
    }

    @Test
    void aRowTheBrokerRefusesFailsAloneAndTheOthersHaveTheirSeqs() throws Exception {
        LogWriter writer = new LogWriter(producer, 60_000);

        CompletableFuture<Log.Appended> written = writer.appendAllAsync("w", drafts(3));
        awaitSent(3);
        assertThat(producer.completeNext()).isTrue();
        assertThat(producer.errorNext(new org.apache.kafka.common.errors.NotEnoughReplicasException("isr")))
                .isTrue();
        assertThat(producer.completeNext()).isTrue();

        Log.Appended seqs = written.get(30, TimeUnit.SECONDS);
        assertThat(seqs.failure(0)).isNull();
        assertThat(seqs.failure(1)).isInstanceOf(ServerFault.class).hasMessageContaining("isr");
        assertThat(seqs.failure(2)).isNull();
        assertThat(seqs.seq(0)).isEqualTo(1);
        assertThat(seqs.seq(2)).isEqualTo(3);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(writer.timersPending()).isZero());
    }

    @Test
    void nothingToWriteIsAnsweredAtOnceWithoutATimer() {
        LogWriter writer = new LogWriter(producer, 60_000);

        assertThat(writer.appendAllAsync("w", List.of())).isCompletedWithValueMatching(a -> a.size() == 0);
        assertThat(writer.timersPending()).isZero();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void batchesTakeTheLanesButTheLastInTurnEachInOrderTablesTheFirstAndSingleRowsTheLast() throws Exception {
        List<MockProducer<String, byte[]>> producers = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            producers.add(new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()));
        }
        LogWriter writer = new LogWriter(producers, 60_000);

        writer.appendAllAsync("w", List.of(draft("a0"), draft("a1"), draft("a2")))
                .get(30, TimeUnit.SECONDS);
        // The next batch's turn is the second lane's; a single row takes the last, a table's write the first.
        writer.appendAsync("w", draft("one")).get(30, TimeUnit.SECONDS);
        writer.appendAllAsync("w", List.of(draft("alone"))).get(30, TimeUnit.SECONDS);
        writer.putText("mp.lease-subjects", "k", "minute");
        writer.appendAllAsync("w", List.of(draft("b0"), draft("b1"))).get(30, TimeUnit.SECONDS);
        writer.appendAllAsync("w", List.of(draft("c0"), draft("c1"))).get(30, TimeUnit.SECONDS);

        assertThat(producers.get(0).history())
                .extracting(LogWriterTest::subjectOrKey)
                .containsExactly("a0", "a1", "a2", "k", "c0", "c1");
        assertThat(producers.get(1).history())
                .extracting(LogWriterTest::subjectOrKey)
                .containsExactly("b0", "b1");
        assertThat(producers.get(2).history())
                .extracting(LogWriterTest::subjectOrKey)
                .containsExactly("one", "alone");
    }

    @Test
    void aWriterOfOneLaneTakesEverythingOnIt() throws Exception {
        MockProducer<String, byte[]> only =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        LogWriter writer = new LogWriter(List.of(only), 60_000);

        writer.appendAllAsync("w", List.of(draft("a0"), draft("a1"))).get(30, TimeUnit.SECONDS);
        writer.appendAsync("w", draft("one")).get(30, TimeUnit.SECONDS);
        writer.putText("mp.lease-subjects", "k", "minute");
        writer.appendAllAsync("w", List.of(draft("b0"), draft("b1"))).get(30, TimeUnit.SECONDS);

        assertThat(only.history())
                .extracting(LogWriterTest::subjectOrKey)
                .containsExactly("a0", "a1", "one", "k", "b0", "b1");
    }

    private static String subjectOrKey(org.apache.kafka.clients.producer.ProducerRecord<String, byte[]> r) {
        org.apache.kafka.common.header.Header subject = r.headers().lastHeader("ce_subject");
        return subject == null ? r.key() : new String(subject.value(), StandardCharsets.UTF_8);
    }

    @Test
    void aWriterNeedsAProducer() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LogWriter(List.of(), 60_000))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
