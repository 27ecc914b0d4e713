package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Health and metrics on the management interface of a real server process: the probes' answers, readiness going DOWN
 * at the start of a stop while a parked pull is still open, and the protocol's meters after a publish, a pull, an ack
 * and a lease claim. The API port keeps refusing {@code /q/*}.
 */
class HealthMetricsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @Test
    void readinessIsUpOnceStartedAndDownDuringAStopWhileAParkedPullIsOpen() throws Exception {
        // The delay holds the stop between "readiness DOWN" and "parked pulls woken" long enough to look at both.
        try (ServerProcess server =
                ServerProcess.builder().env("MP_SHUTDOWN_DELAY", "20s").start()) {
            Http api = new Http(server.baseUri());
            Http management = new Http(server.managementUri());
            await().atMost(DEADLINE)
                    .untilAsserted(() -> assertThat(
                                    management.get(Probes.READY_PATH, null).status())
                            .isEqualTo(200));
            Http.Response ready = management.get(Probes.READY_PATH, null);
            assertThat(ready.json().get("status").asText()).isEqualTo("UP");
            JsonNode data = check(ready, "mp-ready").get("data");
            assertThat(data.get("kafka").asText()).isEqualTo("reachable");
            assertThat(data.get("follower").asText()).isEqualTo("caught up");
            assertThat(data.get("leases").asText()).isIn("RUNNING", "REBALANCING");
            assertThat(data.get("projector").asText()).isIn("RUNNING", "REBALANCING");
            assertThat(management.get(Probes.LIVE_PATH, null).status()).isEqualTo(200);
            assertThat(management.get(Probes.STARTED_PATH, null).status()).isEqualTo(200);

            Walk walk = new Walk(api);
            Walk.Monitor monitor = walk.createMonitor(SharedServer.uniqueId("ready"));
            Walk.Reader reader = walk.subscribe(monitor, "agent:waiting");
            long next = walk.pull(reader, "?limit=100").json().get("next").asLong();
            assertThat(walk.ack(reader, next).status()).isEqualTo(200);
            // Parks: nothing past the cursor, and a wait far longer than the test.
            CompletableFuture<Http.Response> parked =
                    CompletableFuture.supplyAsync(() -> walk.pull(reader, "?wait=55"));

            server.signal("TERM");
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                Http.Response r = management.get(Probes.READY_PATH, null);
                assertThat(r.status()).as(r.body()).isEqualTo(503);
                assertThat(check(r, "mp-ready").at("/data/stopping").asBoolean())
                        .as(r.body())
                        .isTrue();
            });
            assertThat(parked)
                    .as("the parked pull is still open while readiness is DOWN")
                    .isNotDone();
            assertThat(management.get(Probes.LIVE_PATH, null).status()).isEqualTo(200);

            Http.Response answered = parked.get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertThat(answered.status()).as(answered.body()).isEqualTo(200);
            assertThat(answered.json().get("observations")).isEmpty();
            assertThat(answered.json().get("next").asLong()).isEqualTo(next);
            await().atMost(DEADLINE).until(() -> !server.isAlive());
        }
    }

    @Test
    void theProtocolsMetersAreScrapedAfterAPublishAPullAnAckAndALeaseClaim() {
        try (ServerProcess server = ServerProcess.builder().start()) {
            Http api = new Http(server.baseUri());
            Http management = new Http(server.managementUri());
            Walk walk = new Walk(api);
            Walk.Monitor monitor =
                    walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            walk.publish(monitor, "job-1");
            Http.Response refused = api.post(
                    "/mp/v0/monitors/" + monitor.id() + "/observations", "{\"tier\":\"bogus\"}", monitor.ownerToken());
            assertThat(refused.json().has("rejected_seq")).as(refused.body()).isTrue();
            // Two batches: batches take the log producers but the last in turn (MP_LOG_PRODUCERS, 3 by default).
            for (int batch = 0; batch < 2; batch++) {
                Http.Response batched = api.post(
                        "/mp/v0/monitors/" + monitor.id() + "/observations/batch",
                        "{\"observations\":[{\"type\":\"com.example.ci.run\",\"subject\":\"job-2\"},"
                                + "{\"type\":\"com.example.ci.run\",\"subject\":\"job-3\"}]}",
                        monitor.ownerToken());
                assertThat(batched.json().path("accepted").asInt())
                        .as(batched.body())
                        .isEqualTo(2);
            }
            Http.Response sub = api.post(
                    "/mp/v0/subscriptions",
                    "{\"monitor\":\"" + monitor.id()
                            + "\",\"subscriber\":\"agent:worker\",\"capabilities\":[\"observe\",\"act\"]}",
                    monitor.ownerToken());
            assertThat(sub.status()).as(sub.body()).isEqualTo(201);
            Walk.Reader reader = new Walk.Reader(
                    sub.json().at("/subscription/id").asText(),
                    sub.json().get("token").asText());
            Http.Response page = walk.pull(reader, "?limit=100");
            assertThat(page.status()).isEqualTo(200);
            assertThat(walk.ack(reader, page.json().get("next").asLong()).status())
                    .isEqualTo(200);
            Http.Response claim = api.post(
                    "/mp/v0/subscriptions/" + reader.subscription() + "/leases/claim",
                    "{\"subject\":\"job-1\"}",
                    reader.token());
            assertThat(claim.status()).as(claim.body()).isEqualTo(201);

            Http.Response scrape = management.get(Probes.METRICS_PATH, null);
            assertThat(scrape.status()).isEqualTo(200);
            String metrics = scrape.body();
            assertThat(value(metrics, "mp_publish_total", "outcome=\"accepted\""))
                    .isGreaterThanOrEqualTo(1);
            assertThat(value(metrics, "mp_publish_total", "outcome=\"rejected\""))
                    .isGreaterThanOrEqualTo(1);
            assertThat(value(metrics, "mp_publish_duration_seconds_count", "outcome=\"accepted\""))
                    .isGreaterThanOrEqualTo(1);
            assertThat(value(metrics, "mp_publish_duration_seconds_sum", "outcome=\"accepted\""))
                    .isPositive();
            assertThat(value(metrics, "mp_pull_duration_seconds_count", "")).isGreaterThanOrEqualTo(1);
            assertThat(value(metrics, "mp_ack_total", "")).isGreaterThanOrEqualTo(1);
            assertThat(value(metrics, "mp_lease_claim_duration_seconds_count", "result=\"granted\""))
                    .isEqualTo(1);
            assertThat(value(metrics, "mp_subscriptions_active", "")).isEqualTo(1);
            assertThat(value(metrics, "mp_follower_lag_records", "")).isGreaterThanOrEqualTo(0);
            assertThat(value(metrics, "mp_build_info", "version=\"")).isEqualTo(1);
            // Every log producer wrote: the first the tables and a batch, the second the other batch, the last the
            // single rows (the publish and the rejected row).
            assertThat(value(metrics, "kafka_producer_record_send_total", "client_id=\"mp-gateway\""))
                    .isGreaterThanOrEqualTo(3);
            assertThat(value(metrics, "kafka_producer_record_send_total", "client_id=\"mp-gateway-1\""))
                    .isEqualTo(2);
            assertThat(value(metrics, "kafka_producer_record_send_total", "client_id=\"mp-gateway-rows\""))
                    .isGreaterThanOrEqualTo(2);
            // HTTP server, JVM and Kafka clients' meters are there too; none is per monitor.
            assertThat(metrics)
                    .contains("http_server_requests_seconds_count")
                    .contains("jvm_memory_used_bytes")
                    .contains("kafka_producer_")
                    .contains("kafka_stream_")
                    .doesNotContain(monitor.id());

            Http.Response onApi = api.get(Probes.METRICS_PATH, null);
            assertThat(onApi.status()).isEqualTo(404);
            assertThat(onApi.json().get("code").asText()).isEqualTo("NOT_FOUND");
            assertThat(api.get(Probes.READY_PATH, null).status()).isEqualTo(404);
        }
    }

    /** The health check named {@code name} in a {@code /q/health} answer; fails when there is none. */
    static JsonNode check(Http.Response health, String name) {
        for (JsonNode check : health.json().get("checks")) {
            if (check.get("name").asText().equals(name)) {
                return check;
            }
        }
        throw new AssertionError("no check " + name + " in " + health.body());
    }

    /** The value of the first sample of {@code name} whose labels contain {@code label}; fails when there is none. */
    private static double value(String scrape, String name, String label) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)")
                .matcher(scrape);
        while (m.find()) {
            String labels = m.group(1) == null ? "" : m.group(1);
            if (labels.contains(label)) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no sample " + name + " with " + label + " in the scrape:\n"
                + scrape.lines().filter(line -> line.startsWith("mp_")).reduce("", (a, b) -> a + b + "\n"));
    }
}
