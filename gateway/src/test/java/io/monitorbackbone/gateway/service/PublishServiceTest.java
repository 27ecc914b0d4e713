package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.request.ConfigureMonitor;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** PublishService over in-memory ports: an accepted observation is appended, a refused one is appended as evidence. */
class PublishServiceTest {

    private static byte[] note(String subject) {
        ObjectNode body = Json.object();
        body.put("type", "demo.note");
        body.put("subject", subject);
        body.put("actor", "probe:test");
        body.put("tier", "measured");
        body.put("origin", "probe");
        body.putObject("data").put("status", "failed");
        return Json.bytes(body);
    }

    @Test
    void theOwnersObservationIsAppendedAndItsSubjectMarkedForTheLeasesServiceBeforeTheReply() {
        World w = new World();
        String owner = w.monitor("ci");

        Reply reply = join(w.publish.publish("ci", owner, note("build-412")));

        assertThat(reply.status()).isEqualTo(201);
        assertThat(reply.body().get("seq").asLong()).isEqualTo(2);
        assertThat(w.log.at("ci", 2).subject()).isEqualTo("build-412");
        assertThat(reply.body().get("observation").get("id").asText()).isEqualTo("2");
        assertThat(w.tables.written(Topics.LEASE_SUBJECTS))
                .singleElement()
                .satisfies(r -> assertThat(r.key()).isEqualTo(LeaseCommand.key("ci", "build-412")));

        // A subject this gateway has just seen is not marked again.
        join(w.publish.publish("ci", owner, note("build-412")));
        assertThat(w.tables.written(Topics.LEASE_SUBJECTS)).hasSize(1);
    }

    @Test
    void withoutTheOwnersTokenNothingIsAppended() {
        World w = new World();
        w.monitor("ci");

        assertThatThrownBy(() -> join(w.publish.publish("ci", "someone-else", note("x"))))
                .satisfies(e -> assertThat(((ProtocolException) e).code()).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(() -> join(w.publish.publish("nope", "someone-else", note("x"))))
                .satisfies(e -> assertThat(((ProtocolException) e).code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(w.log.records("ci")).hasSize(1);
    }

    @Test
    void aPublishToAPausedMonitorIsRefusedAndRecordedAsARejectedRow() {
        World w = new World();
        String owner = w.monitor("ci");
        w.monitors.configure("ci", ConfigureMonitor.parse("pause", Json.object()), owner);

        ProtocolException refused =
                catchThrowableOfType(ProtocolException.class, () -> join(w.publish.publish("ci", owner, note("x"))));

        assertThat(refused.code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(refused.toJson().get("rejected_seq").asLong()).isEqualTo(3);
        assertThat(w.log.at("ci", 3).type()).isEqualTo(Vocabulary.PROTOCOL_TYPE_PREFIX + "rejected");
    }

    @Test
    void aBodyThatIsNotJsonIsRefusedAndKeptAsTextInTheRejectedRow() {
        World w = new World();
        String owner = w.monitor("ci");

        ProtocolException refused = catchThrowableOfType(
                ProtocolException.class,
                () -> join(w.publish.publish("ci", owner, "not json".getBytes(StandardCharsets.UTF_8))));

        assertThat(refused.code()).isEqualTo(ErrorCode.INVALID);
        long seq = refused.toJson().get("rejected_seq").asLong();
        assertThat(w.log.at("ci", seq).data().toString()).contains("not json");
    }

    @Test
    void anOversizedPublishIsRecordedOnlyWhenTheOwnerSentIt() {
        World w = new World();
        String owner = w.monitor("ci");
        ProtocolException tooLarge = ProtocolException.of(ErrorCode.TOO_LARGE, "too large");

        assertThatThrownBy(() -> join(w.publish.refuseTooLarge("ci", "stranger", tooLarge, 2_000_000)))
                .isSameAs(tooLarge);
        assertThat(w.log.records("ci")).hasSize(1);

        assertThatThrownBy(() -> join(w.publish.refuseTooLarge("ci", owner, tooLarge, 2_000_000)))
                .isSameAs(tooLarge);
        assertThat(w.log.records("ci")).hasSize(2);
        assertThat(w.log.at("ci", 2).data().path("payload").path("bytes").asLong())
                .isEqualTo(2_000_000);
        assertThat(tooLarge.toJson().get("rejected_seq").asLong()).isEqualTo(2);
    }

    /** The publish's answer, or its refusal thrown as it is (the stage fails with it). */
    private static Reply join(java.util.concurrent.CompletionStage<Reply> stage) {
        try {
            return stage.toCompletableFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
