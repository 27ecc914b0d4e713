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

    private static Reply answered(CompletableFuture<Reply> reply) throws Exception {
        return reply.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aBatchIsAnsweredOnlyOnceItsMarksItsRowsAndItsReactionsAreAllAcknowledged() throws Exception {
        CompletableFuture<Reply> reply = publish.publishBatch(
                        "w-1",
                        owner,
                        bytes("{\"observations\":[{\"type\":\"demo.note\",\"subject\":\"a\"},"
                                + "{\"type\":\"demo.note\",\"tier\":\"nonsense\"},"
                                + "{\"type\":\"demo.note\",\"subject\":\"a\"}]}"))
                .toCompletableFuture();

        assertThat(sent(1).topic())
                .as("one mark for the subject both items name")
                .isEqualTo(Topics.LEASE_SUBJECTS);
        assertThat(reply).isNotDone();
        producer.completeNext();

        // Every item's row at once, in item order, without waiting for the one before it.
        sent(4);
        assertThat(producer.history().subList(1, 4).stream()
                        .map(PublishAcknowledgementTest::type)
                        .toList())
                .containsExactly("demo.note", Vocabulary.REJECTED, "demo.note");
        producer.completeNext();
        producer.completeNext();
        assertThat(reply).as("the last item's row is not acknowledged yet").isNotDone();
        producer.completeNext();

        // Then the reactions the rules owe, in item order.
        sent(8);
        assertThat(producer.history().subList(4, 8).stream()
                        .map(PublishAcknowledgementTest::type)
                        .toList())
                .containsExactly(
                        Rules.TYPE_PREFIX + "log",
                        Rules.TYPE_PREFIX + "label",
                        Rules.TYPE_PREFIX + "log",
                        Rules.TYPE_PREFIX + "label");
        for (int i = 0; i < 3; i++) {
            producer.completeNext();
        }
        assertThat(reply).as("a reaction is not acknowledged yet").isNotDone();
        producer.completeNext();

        Reply answer = answered(reply);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body().get("results")).hasSize(3);
        assertThat(answer.body().at("/results/0").toString()).isEqualTo("{\"status\":201,\"seq\":1}");
        assertThat(answer.body().at("/results/1/code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(answer.body().at("/results/1/status").asInt()).isEqualTo(400);
        assertThat(answer.body().at("/results/1/rejected_seq").asLong()).isEqualTo(2);
        assertThat(answer.body().at("/results/2/seq").asLong()).isEqualTo(3);
        assertThat(answer.body().get("accepted").asInt()).isEqualTo(2);
        assertThat(answer.body().get("rejected").asInt()).isEqualTo(1);
        assertThat(answer.body().get("failed").asInt()).isZero();
        assertThat(producer.history()).hasSize(8);
    }

    @Test
    void aBatchRowKafkaRefusesIsThatItemsFaultAndTheOthersAreAnswered() throws Exception {
        CompletableFuture<Reply> reply = publish.publishBatch(
                        "w-1", owner, bytes("{\"observations\":[{\"type\":\"demo.note\"},{\"type\":\"demo.note\"}]}"))
                .toCompletableFuture();

        sent(2);
        producer.completeNext();
        producer.errorNext(new NotEnoughReplicasException("not enough replicas"));
        sent(4);
        assertThat(reply).isNotDone();
        producer.completeNext();
        producer.completeNext();

        Reply answer = answered(reply);
        assertThat(answer.body().at("/results/0").toString()).isEqualTo("{\"status\":201,\"seq\":1}");
        assertThat(answer.body().at("/results/1/status").asInt()).isEqualTo(503);
        assertThat(answer.body().at("/results/1/code").asText()).isEqualTo("UNAVAILABLE");
        assertThat(answer.body().at("/results/1/error").asText()).contains("not enough replicas");
        assertThat(answer.body().get("failed").asInt()).isEqualTo(1);
    }

    @Test
    void aBatchOverTheCountIsRecordedBeforeItIsRefusedAndAStrangersIsNotRecorded() {
        StringBuilder many = new StringBuilder("{\"observations\":[");
        for (int i = 0; i <= io.monitorbackbone.protocol.Limits.MAX_BATCH_OBSERVATIONS; i++) {
            many.append(i == 0 ? "" : ",").append("{\"type\":\"demo.note\"}");
        }
        byte[] body = bytes(many.append("]}").toString());

        CompletionStage<Reply> reply = publish.publishBatch("w-1", owner, body);
        assertThat(type(sent(1))).isEqualTo(Vocabulary.REJECTED);
        assertThat(reply.toCompletableFuture()).isNotDone();
        producer.completeNext();
        assertThat(failure(reply)).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE);
            assertThat(e.toJson().get("rejected_seq").asLong()).isEqualTo(1);
            assertThat(e.toJson().get("max_batch_observations").asInt()).isEqualTo(1000);
        });

        assertThat(failure(publish.publishBatch("w-1", "not-the-owner", body)))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThat(producer.history()).hasSize(1);
    }
}
