package io.monitorbackbone.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Two servers on one broker: the second started with KAFKA_BOOTSTRAP_SERVERS pointing at the first's embedded broker. */
class TwoGatewaysIT {

    @Test
    void twoServersShareOneBrokerAndServeTheSameMonitors(@TempDir Path data) throws Exception {
        try (ServerProcess first = ServerProcess.builder().env("MP_DATA", data.toString()).start();
             ServerProcess second = ServerProcess.builder()
                     .env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:" + first.kafkaPort()).start()) {
            Walk a = new Walk(new Http(first.baseUri()));
            Walk b = new Walk(new Http(second.baseUri()));

            Walk.Monitor m = a.createMonitor("shared-log");
            await("the second server sees the monitor").atMost(Duration.ofSeconds(10))
                    .until(() -> b.http.get("/mp/v0/monitors/shared-log", null).status() == 200);
            long seq = b.publish(m, "via-second");
            Walk.Reader reader = a.subscribe(m, "agent:both");
            await("the second server sees the subscription").atMost(Duration.ofSeconds(10))
                    .until(() -> b.http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull", reader.token()).status() == 200);

            JsonNode viaSecond = b.pull(reader, "").json();
            b.ack(reader, 4);
            await("the first server sees the ack").atMost(Duration.ofSeconds(10))
                    .until(() -> a.pull(reader, "").json().get("cursor").asLong() == 4);

            CompletableFuture<JsonNode> parkedOnFirst = CompletableFuture.supplyAsync(() -> a.pull(reader, "?wait=20").json());
            await("the pull parks").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> !parkedOnFirst.isDone());
            long late = b.publish(m, "late");
            JsonNode woken = parkedOnFirst.get(10, TimeUnit.SECONDS);

            assertThat(seq).isEqualTo(2);
            assertThat(viaSecond.get("observations")).extracting(o -> o.get("id").asText()).containsExactly("1", "2", "3");
            assertThat(woken.get("observations")).extracting(o -> o.get("id").asText()).containsExactly(String.valueOf(late));
        }
    }
}
