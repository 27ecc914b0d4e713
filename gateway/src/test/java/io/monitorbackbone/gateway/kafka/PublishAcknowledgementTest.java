package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.service.PublishService;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Rules;
import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.protocol.Vocabulary;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The publish path against a producer whose acknowledgements the test gives by hand: no answer before every write it
 * reports is acknowledged, the writes in their order (mark, observation, reactions), each one only after the one
 * before it was acknowledged, and a refusal only after its {@code rejected} row was.
 */
class PublishAcknowledgementTest {
    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");

    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
    private final Catalog catalog = new Catalog(0);
    private final LogWriter writer = new LogWriter(producer);
    private final PublishService publish = new PublishService(
            new KafkaTables(catalog, writer),
            new KafkaLog(null, null, writer),
            Runnable::run,
            Clock.fixed(NOW, ZoneOffset.UTC));
    private final String owner;

    PublishAcknowledgementTest() {
        ObjectNode definition =
                (ObjectNode) Json.read(("{\"owner\":\"human:alice\",\"horizon\":\"minute\",\"visibility\":\"public\","
                                + "\"rules\":[{\"id\":\"r1\",\"then\":\"log\"},{\"id\":\"r2\",\"then\":\"label\"}]}")
                        .getBytes(StandardCharsets.UTF_8));
        MonitorDefinitions.Created created = MonitorDefinitions.create("w-1", definition, NOW, false);
        catalog.apply(created.monitor());
        owner = created.ownerToken();
    }

    private static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    /** Waits until the writer has handed the producer its {@code n}th record, and returns it. */
    private ProducerRecord<String, byte[]> sent(int n) {
        await().atMost(Duration.ofSeconds(30)).until(() -> producer.history().size() >= n);
        assertThat(producer.history())
                .as("a write is handed over only once the one before it is acknowledged")
                .hasSize(n);
        return producer.history().get(n - 1);
    }

    private static String type(ProducerRecord<String, byte[]> record) {
        return ObservationCodec.decode("w-1", record.headers(), record.value(), 0)
                .type();
    }

    private static Throwable failure(CompletionStage<Reply> stage) {
        try {
            stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
            throw new AssertionError("the stage completed with a reply");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theReplyWaitsForTheMarkTheObservationAndEveryReaction() throws Exception {
        CompletableFuture<Reply> reply = publish.publish(
                        "w-1", owner, bytes("{\"type\":\"demo.note\",\"subject\":\"build-1\",\"data\":{\"ok\":true}}"))
                .toCompletableFuture();

        assertThat(sent(1).topic()).isEqualTo(Topics.LEASE_SUBJECTS);
        assertThat(reply).as("nothing is acknowledged yet").isNotDone();
        producer.completeNext();

        ProducerRecord<String, byte[]> row = sent(2);
        assertThat(row.topic()).isEqualTo(Topics.obs("w-1"));
        assertThat(type(row)).isEqualTo("demo.note");
        assertThat(reply).as("the observation is not acknowledged yet").isNotDone();
        producer.completeNext();

        assertThat(type(sent(3))).isEqualTo(Rules.TYPE_PREFIX + "log");
        assertThat(reply).as("a reaction the rules owe is not acknowledged yet").isNotDone();
        producer.completeNext();
        assertThat(type(sent(4))).isEqualTo(Rules.TYPE_PREFIX + "label");
        assertThat(reply).isNotDone();
        producer.completeNext();

        Reply answer = reply.get(30, TimeUnit.SECONDS);
        assertThat(answer.status()).isEqualTo(201);
        assertThat(answer.body().get("seq").asLong()).isEqualTo(1);
        assertThat(answer.body().at("/observation/subject").asText()).isEqualTo("build-1");
        assertThat(producer.history()).hasSize(4);
    }

    @Test
    void aRefusalWaitsForItsRejectedRow() {
        CompletionStage<Reply> reply =
                publish.publish("w-1", owner, bytes("{\"type\":\"demo.note\",\"tier\":\"nonsense\"}"));

        ProducerRecord<String, byte[]> row = sent(1);
        assertThat(type(row)).isEqualTo(Vocabulary.REJECTED);
        assertThat(reply.toCompletableFuture())
                .as("the rejected row is not acknowledged yet")
                .isNotDone();
        producer.completeNext();

        assertThat(failure(reply)).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
            assertThat(e.toJson().get("rejected_seq").asLong()).isEqualTo(1);
        });
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void anUnparsableBodyIsRecordedAndRefused() {
        CompletionStage<Reply> reply = publish.publish("w-1", owner, bytes("not json"));

        assertThat(type(sent(1))).isEqualTo(Vocabulary.REJECTED);
        producer.completeNext();
        assertThat(failure(reply)).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID);
            assertThat(e.toJson().get("rejected_seq").asLong()).isEqualTo(1);
        });
    }

    @Test
    void aStrangerIsRefusedAndNothingIsWritten() {
        assertThat(failure(publish.publish("w-1", "not-the-owner", bytes("{\"type\":\"demo.note\"}"))))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThat(failure(publish.publish("nope", owner, bytes("{\"type\":\"demo.note\"}"))))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void aTooLargeBodyFromTheOwnerIsRecordedBeforeItIsRefused() {
        ProtocolException tooLarge = ProtocolException.of(ErrorCode.TOO_LARGE, "too large");
        CompletionStage<Reply> reply = publish.refuseTooLarge("w-1", owner, tooLarge, 2_000_000);

        assertThat(type(sent(1))).isEqualTo(Vocabulary.REJECTED);
        assertThat(reply.toCompletableFuture()).isNotDone();
        producer.completeNext();
        assertThat(failure(reply)).isSameAs(tooLarge);
        assertThat(tooLarge.toJson().get("rejected_seq").asLong()).isEqualTo(1);

        ProtocolException fromStranger = ProtocolException.of(ErrorCode.TOO_LARGE, "too large");
        assertThat(failure(publish.refuseTooLarge("w-1", null, fromStranger, 2_000_000)))
                .isSameAs(fromStranger);
        assertThat(fromStranger.toJson().has("rejected_seq")).isFalse();
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void aWriteKafkaRefusesFailsThePublishAndNothingAfterItIsWritten() {
        CompletionStage<Reply> reply =
                publish.publish("w-1", owner, bytes("{\"type\":\"demo.note\",\"subject\":\"s\"}"));

        sent(1);
        producer.errorNext(new NotEnoughReplicasException("not enough replicas"));

        assertThat(failure(reply))
                .isInstanceOfSatisfying(
                        ServerFault.class,
                        f -> assertThat(f.answer())
                                .startsWith("Kafka did not acknowledge the write to " + Topics.LEASE_SUBJECTS + ": ")
                                .contains("not enough replicas")
                                .endsWith("; nothing was acknowledged, retry"));
        assertThat(producer.history())
                .as("the observation is not written after its mark failed")
                .hasSize(1);
    }
}
