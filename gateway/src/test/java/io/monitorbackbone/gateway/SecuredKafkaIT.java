package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.KafkaReads;
import io.monitorbackbone.testsupport.ScramKafka;
import io.monitorbackbone.testsupport.ServerProcess;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The server against a cluster that requires SASL/SCRAM-SHA-512 (a broker of its own, in this JVM), with the
 * credentials given only as {@code MP_KAFKA_*} pass-through: every client of every role (producer, readers, follower,
 * admin, the hosted leases and projector) logs in, and a client without them is refused.
 */
class SecuredKafkaIT {

    @Test
    void publishAndPullWorkOnAScramClusterThatRefusesClientsWithoutCredentials() {
        try (ScramKafka kafka = ScramKafka.start();
                ServerProcess server =
                        ServerProcess.builder().env(kafka.serverEnv()).start()) {
            Http http = new Http(server.baseUri());
            Walk walk = new Walk(http);
            Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            long seq = walk.publish(m, "build-1");
            Http.Response subscribed = http.post(
                    "/mp/v0/subscriptions",
                    "{\"monitor\":\"" + m.id()
                            + "\",\"subscriber\":\"agent:scram\",\"capabilities\":[\"observe\",\"act\"]}",
                    m.ownerToken());
            assertThat(subscribed.status()).as(subscribed.body()).isEqualTo(201);
            Walk.Reader reader = new Walk.Reader(
                    subscribed.json().at("/subscription/id").asText(),
                    subscribed.json().get("token").asText());
            JsonNode pulled = walk.pull(reader, "").json();
            assertThat(seq).isEqualTo(2);
            assertThat(pulled.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly("1", "2", "3");
            // A claim is decided by the hosted leases service, the state is what the hosted projector folded and
            // published: both Streams apps.
            Http.Response claimed = http.post(
                    "/mp/v0/subscriptions/" + reader.subscription() + "/leases/claim",
                    "{\"subject\":\"build-1\"}",
                    reader.token());
            assertThat(claimed.status()).as(claimed.body()).isEqualTo(201);
            org.awaitility.Awaitility.await("the projector folded the log")
                    .atMost(java.time.Duration.ofSeconds(60))
                    .until(() ->
                            walk.state(m).json().at("/counters/observations").asLong(0) >= 3);

            KafkaReads.assertRefused(Map.of("bootstrap.servers", kafka.bootstrapServers()), Topics.MONITORS);
            KafkaReads.assertRefused(KafkaReads.withWrongPassword(kafka.clientProperties()), Topics.MONITORS);
            assertThat(KafkaReads.keys(kafka.clientProperties(), Topics.MONITORS))
                    .contains(m.id());
            assertThat(server.log()).doesNotContain(kafka.password()).doesNotContain("SaslAuthenticationException");
        }
    }
}
