package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two servers on one broker: the second started with KAFKA_BOOTSTRAP_SERVERS pointing at the first's embedded broker,
 * and its user as MP_KAFKA_* (what {@code mp kafka-config} prints).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoGatewaysIT {
    /** One pair for the class: every test uses monitors of its own; only the last one restarts a server. */
    @TempDir
    static Path data;

    private static ServerProcess first;
    private static ServerProcess second;

    @BeforeAll
    static void start() {
        // A short idle time, so that the gateways let logs go (and follow them again) within the tests' waits.
        first = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .env("MP_FOLLOW_IDLE", "2s")
                .start();
        second = ServerProcess.builder()
                .env(first.sharedBrokerEnv())
                .env("MP_FOLLOW_IDLE", "2s")
                .start();
    }

    @AfterAll
    static void stop() {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void twoServersShareOneBrokerAndServeTheSameMonitors() throws Exception {
        {
            Walk a = new Walk(new Http(first.baseUri()));
            Walk b = new Walk(new Http(second.baseUri()));

            Walk.Monitor m = a.createMonitor("shared-log");
            await("the second server sees the monitor")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> b.http.get("/mp/v0/monitors/shared-log", null).status() == 200);
            long seq = b.publish(m, "via-second");
            Walk.Reader reader = a.subscribe(m, "agent:both");
            await("the second server sees the subscription")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> b.http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull", reader.token())
                                    .status()
                            == 200);

            JsonNode viaSecond = b.pull(reader, "").json();
            b.ack(reader, 4);
            await("the first server sees the ack")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> a.pull(reader, "").json().get("cursor").asLong() == 4);

            CompletableFuture<JsonNode> parkedOnFirst = CompletableFuture.supplyAsync(
                    () -> a.pull(reader, "?wait=20").json());
            await("the pull parks")
                    .during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> !parkedOnFirst.isDone());
            long late = b.publish(m, "late");
            JsonNode woken = parkedOnFirst.get(10, TimeUnit.SECONDS);

            assertThat(seq).isEqualTo(2);
            assertThat(viaSecond.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly("1", "2", "3");
            assertThat(woken.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly(String.valueOf(late));
        }
    }

    /**
     * Bounded fan-out: a gateway reads a monitor's log only while its own readers need it. Monitors written through the
     * first gateway are followed by neither (no reader anywhere); a reader arriving on the second gets the same head
     * as the first serves, every record, and a parked pull woken by a publish on the first; once idle the second lets
     * the log go, and reads it again, nothing skipped, when the reader comes back.
     */
    @Test
    void aGatewayFollowsOnlyTheLogsItsReadersNeedAndLetsThemGoWhenIdle() throws Exception {
        {
            Walk a = new Walk(new Http(first.baseUri()));
            Walk b = new Walk(new Http(second.baseUri()));
            java.util.List<Walk.Monitor> monitors = new java.util.ArrayList<>();
            for (int i = 0; i < 6; i++) {
                Walk.Monitor m = a.createMonitor("fanout-" + i);
                monitors.add(m);
                for (int n = 0; n < 3; n++) {
                    a.publish(m, "s-" + n);
                }
            }
            Walk.Monitor watched = monitors.get(0);
            await("the second server sees every monitor, and the logs other tests read are let go")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> b.http.get("/mp/v0/monitors/fanout-5", null).status() == 200
                            && followedLogs(first) == 0
                            && followedLogs(second) == 0);
            for (Walk.Monitor m : monitors) {
                assertThat(b.http.get("/mp/v0/monitors/" + m.id(), null)
                                .json()
                                .get("head")
                                .asLong())
                        .as("a head read from the log itself, %s not followed", m.id())
                        .isEqualTo(4);
            }
            assertThat(followedLogs(second))
                    .as("no reader on the second gateway")
                    .isZero();
            assertThat(followedLogs(first))
                    .as("publishes alone read nothing back")
                    .isZero();

            Walk.Reader reader = a.subscribe(watched, "agent:arriving");
            // A subscription without a filter needs nothing of the log but its bounds: the first gateway does not
            // follow it (it did, and the subscribe waited for the follower to take the log up).
            assertThat(followedLogs(first))
                    .as("a subscribe without a filter follows no log")
                    .isZero();
            JsonNode cold = b.pull(reader, "?limit=100").json();
            assertThat(cold.get("head").asLong()).isEqualTo(5);
            assertThat(cold.get("observations"))
                    .extracting(o -> o.get("id").asLong())
                    .containsExactly(1L, 2L, 3L, 4L, 5L);
            b.ack(reader, 6);

            CompletableFuture<JsonNode> parked = CompletableFuture.supplyAsync(
                    () -> b.pull(reader, "?wait=30").json());
            await("the pull parks on the second gateway")
                    .during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> !parked.isDone());
            await("parked longer than the idle time, the pull holds its log, and only it is followed")
                    .during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> followedLogs(second) == 1 && !parked.isDone());
            long late = a.publish(watched, "late");
            JsonNode woken = parked.get(20, TimeUnit.SECONDS);
            assertThat(woken.get("observations"))
                    .extracting(o -> o.get("id").asLong())
                    .containsExactly(late);

            await("the second gateway lets the idle log go")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> followedLogs(second) == 0);
            long unread = a.publish(watched, "while-let-go");
            JsonNode again = b.pull(reader, "?limit=100").json();
            assertThat(again.get("head").asLong()).isEqualTo(unread);
            assertThat(again.get("observations"))
                    .as("read again from its cursor, nothing skipped")
                    .extracting(o -> o.get("id").asLong())
                    .containsExactly(late, unread);
        }
    }

    private static long followedLogs(ServerProcess server) {
        String scrape =
                new Http(server.managementUri()).get(Probes.METRICS_PATH, null).body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^mp_follower_logs(\\{[^}]*})? (\\S+)")
                .matcher(scrape);
        if (!m.find()) {
            throw new AssertionError("no mp_follower_logs in the scrape");
        }
        return (long) Double.parseDouble(m.group(2));
    }

    @Test
    void aReaderAlternatingBetweenGatewaysNeverSkipsAndNeverSeesItsCursorGoBack() {
        {
            Walk a = new Walk(new Http(first.baseUri()));
            Walk b = new Walk(new Http(second.baseUri()));
            Walk.Monitor m = a.createMonitor("alternating");
            for (int i = 0; i < 30; i++) {
                (i % 2 == 0 ? a : b).publish(m, "n-" + i);
            }
            Walk.Reader reader = a.subscribe(m, "agent:alternator");

            java.util.List<Long> received = new java.util.ArrayList<>();
            long lastCursor = -1;
            for (int round = 0; round < 40 && received.size() < 32; round++) {
                Walk via = round % 2 == 0 ? b : a;
                JsonNode pulled = via.pull(reader, "?limit=4").json();
                assertThat(pulled.get("cursor").asLong()).as("round %d", round).isGreaterThanOrEqualTo(lastCursor);
                lastCursor = pulled.get("cursor").asLong();
                pulled.get("observations").forEach(o -> received.add(o.get("id").asLong()));
                Walk ackVia = round % 3 == 0 ? a : b;
                lastCursor = ackVia.ack(reader, pulled.get("next").asLong())
                        .json()
                        .get("cursor")
                        .asLong();
            }

            // seq 1 created the monitor, 2..31 are the publishes, 32 is the subscribed row.
            assertThat(received)
                    .as("every observation once, in order, none skipped")
                    .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, 32)
                            .boxed()
                            .toList());
        }
    }

    @Test
    void exactlyOneGatewaySweepsAMutedSubscription() {
        {
            Walk a = new Walk(new Http(first.baseUri()));
            Walk b = new Walk(new Http(second.baseUri()));
            Walk.Monitor m = a.createMonitor("muted");
            Walk.Reader witness = a.subscribe(m, "agent:witness");
            Http.Response mute = b.http.post(
                    "/mp/v0/subscriptions",
                    "{\"monitor\":\"muted\",\"subscriber\":\"agent:mute\",\"retire_after_mute_seconds\":1}",
                    null);
            assertThat(mute.status()).isEqualTo(201);

            await("the sweep retires the muted subscription")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> a.pull(witness, "?cursor=1&types=ai.mentu.monitor.subscription_retired")
                                    .json()
                                    .get("observations")
                                    .size()
                            > 0);
            // Both gateways had the chance to sweep it twice over by now; only one may have.
            await().pollDelay(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> true);

            JsonNode wills = a.pull(witness, "?cursor=1&types=ai.mentu.monitor.subscription_retired")
                    .json()
                    .get("observations");
            assertThat(wills).hasSize(1);
            assertThat(wills.get(0).at("/data/payload/reason").asText()).isEqualTo("mute");
        }
    }

    @Test
    void twoGatewaysClaimingTheSameSubjectAtOnceAlwaysHaveExactlyOneWinner() throws Exception {
        {
            Http a = new Http(first.baseUri());
            Http b = new Http(second.baseUri());
            Http.Response created = a.post(
                    "/mp/v0/monitors",
                    "{\"id\":\"work\",\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}",
                    null);
            String owner = created.json().get("owner_token").asText();
            int rounds = 100;
            for (int i = 0; i < rounds; i++) {
                assertThat(a.post(
                                        "/mp/v0/monitors/work/observations",
                                        "{\"type\":\"demo.job\",\"subject\":\"job-" + i + "\"}",
                                        owner)
                                .status())
                        .isEqualTo(201);
            }
            JsonNode one = a.post(
                            "/mp/v0/subscriptions",
                            "{\"monitor\":\"work\",\"subscriber\":\"agent:one\",\"capabilities\":[\"observe\",\"act\"]}",
                            owner)
                    .json();
            JsonNode two = a.post(
                            "/mp/v0/subscriptions",
                            "{\"monitor\":\"work\",\"subscriber\":\"agent:two\",\"capabilities\":[\"observe\",\"act\"]}",
                            owner)
                    .json();
            await("the second gateway sees both subscriptions")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> b.get(
                                            "/mp/v0/subscriptions/"
                                                    + two.at("/subscription/id").asText() + "/pull?limit=1",
                                            two.get("token").asText())
                                    .status()
                            == 200);

            for (int i = 0; i < rounds; i++) {
                String body = "{\"subject\":\"job-" + i + "\"}";
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                CompletableFuture<Http.Response> viaA = CompletableFuture.supplyAsync(() -> {
                    startTogether(go);
                    return a.post(
                            "/mp/v0/subscriptions/" + one.at("/subscription/id").asText() + "/leases/claim",
                            body,
                            one.get("token").asText());
                });
                CompletableFuture<Http.Response> viaB = CompletableFuture.supplyAsync(() -> {
                    startTogether(go);
                    return b.post(
                            "/mp/v0/subscriptions/" + two.at("/subscription/id").asText() + "/leases/claim",
                            body,
                            two.get("token").asText());
                });
                go.countDown();
                java.util.List<Integer> statuses = java.util.List.of(
                        viaA.get(30, TimeUnit.SECONDS).status(),
                        viaB.get(30, TimeUnit.SECONDS).status());
                assertThat(statuses).as("round %d", i).containsExactlyInAnyOrder(201, 409);
            }
        }
    }

    /**
     * ADR 0002's race: two gateways acking one subscription at the same instant, the higher and the lower ack taking
     * turns on each gateway. A compacted table keeps only a key's last record, so after every round the last record of
     * the subscription in {@code mp.cursors} (what a gateway started after a compaction reads) must carry the highest
     * ack, as must a pull on either gateway, and on one restarted at the end.
     */
    @Test
    @Order(Integer.MAX_VALUE) // it restarts the second gateway
    void twoGatewaysAckingOneSubscriptionAtOnceLeaveTheHighestAckLastInTheCursorTable() throws Exception {
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (CursorTable table = new CursorTable(first.kafkaClientProperties())) {
            Walk a = new Walk(new Http(first.baseUri()));
            Walk b = new Walk(new Http(second.baseUri()));
            Walk.Monitor m = a.createMonitor("raced-acks");
            int rounds = 40;
            for (int i = 0; i < 2 * rounds; i++) {
                a.publish(m, "n-" + i);
            }
            Walk.Reader reader = a.subscribe(m, "agent:racer");
            await("the second gateway sees the subscription")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> b.pull(reader, "?limit=1").status() == 200);

            long highest = 1;
            for (int round = 0; round < rounds; round++) {
                long lower = 2L * round + 2;
                long higher = lower + 1;
                Walk lowVia = round % 2 == 0 ? a : b;
                Walk highVia = round % 2 == 0 ? b : a;
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                java.util.concurrent.Future<Http.Response> low = clients.submit(() -> {
                    startTogether(go);
                    return ackOf(lowVia, reader, lower);
                });
                java.util.concurrent.Future<Http.Response> high = clients.submit(() -> {
                    startTogether(go);
                    return ackOf(highVia, reader, higher);
                });
                go.countDown();
                Http.Response lowAnswer = low.get(30, TimeUnit.SECONDS);
                Http.Response highAnswer = high.get(30, TimeUnit.SECONDS);
                assertThat(highAnswer.status())
                        .as("round %d: %s", round, highAnswer.body())
                        .isEqualTo(200);
                if (lowAnswer.status() != 200) {
                    assertThat(lowAnswer.json().get("code").asText())
                            .as("round %d: the lower ack came after the higher one", round)
                            .isEqualTo("CURSOR_BACKWARDS");
                }
                highest = higher;

                assertThat(table.lastCursorOf(reader.subscription()))
                        .as("round %d: the last record, the one a compaction keeps", round)
                        .isEqualTo(highest);
                for (Walk via : java.util.List.of(a, b)) {
                    assertThat(via.pull(reader, "?limit=1").json().get("cursor").asLong())
                            .as("round %d: the cursor on either gateway", round)
                            .isEqualTo(highest);
                }
            }

            second.stop();
            second.restart();
            assertThat(b.pull(reader, "?limit=1").json().get("cursor").asLong())
                    .as("after a restart")
                    .isEqualTo(highest);
            assertThat(table.lastCursorOf(reader.subscription())).isEqualTo(highest);
        } finally {
            clients.shutdownNow();
        }
    }

    /** An ack as answered, a refusal included. */
    private static Http.Response ackOf(Walk via, Walk.Reader reader, long cursor) {
        return via.http.post(
                "/mp/v0/subscriptions/" + reader.subscription() + "/ack",
                "{\"cursor\":" + cursor + "}",
                reader.token());
    }

    /** {@code mp.cursors} read as a compaction leaves it: the last record of each key. */
    private static final class CursorTable implements AutoCloseable {
        private final org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> consumer;
        private final java.util.Map<String, Long> last = new java.util.HashMap<>();

        CursorTable(java.util.Map<String, String> client) {
            java.util.Map<String, Object> p = new java.util.HashMap<>(client);
            p.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
            p.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
            consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(p);
            java.util.List<org.apache.kafka.common.TopicPartition> partitions =
                    consumer.partitionsFor("mp.cursors", Duration.ofSeconds(30)).stream()
                            .map(i -> new org.apache.kafka.common.TopicPartition(i.topic(), i.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        /** The cursor of the subscription's last record, once every record written so far is read. */
        long lastCursorOf(String subscription) {
            java.util.Map<org.apache.kafka.common.TopicPartition, Long> end =
                    consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
                assertThat(System.nanoTime())
                        .as("mp.cursors read to its end in time")
                        .isLessThan(deadline);
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        last.put(
                                r.key(),
                                io.monitorbackbone.protocol.Json.read(r.value())
                                        .get("cursor")
                                        .asLong());
                    }
                }
            }
            return last.getOrDefault(subscription, -1L);
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    private static void startTogether(java.util.concurrent.CountDownLatch go) {
        try {
            go.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
