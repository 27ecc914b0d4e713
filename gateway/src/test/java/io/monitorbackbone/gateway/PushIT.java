package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.monitorbackbone.broker.EmbeddedKafka;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhook push against a real receiver (docs/adr/0016-webhook-push.md): a JDK HTTP server in the test JVM records every
 * delivery with its Standard Webhooks headers, checks each signature against the secret the subscribe answered, and
 * fails on purpose where a test says so. Two gateways share one broker of this class's own, so the sweeper's election
 * (which hands out the push) has only them to choose from; they serve every test, and the last one kills the pushing
 * gateway with -9.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PushIT {
    private static final Duration GENEROUS = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PUSHING = "this gateway runs the webhook push";
    private static final String NOT_PUSHING = "this gateway no longer runs the webhook push";
    private static final String ADMIN = "admin-" + UUID.randomUUID();

    @TempDir
    static Path data;

    private static EmbeddedKafka kafka;
    private static Receiver receiver;
    private static ServerProcess first;
    private static ServerProcess second;
    private static Walk a;
    private static Walk b;

    /** One request the receiver got, and what it answered. */
    record Delivery(String path, String id, String timestamp, String signature, byte[] body, int answered) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        long seq() {
            return json().get("id").asLong();
        }

        boolean ok() {
            return answered >= 200 && answered < 300;
        }

        /** The Standard Webhooks check, written here from the specification rather than with the server's code. */
        boolean signedWith(String secret) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(
                        Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
                mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
                String expected = "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
                return List.of(signature.split(" ")).contains(expected);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A webhook receiver: each path answers by its own rule (200 unless told otherwise) and keeps what it got. */
    static final class Receiver implements AutoCloseable {
        final HttpServer server;
        final Map<String, Function<Delivery, Integer>> rules = new ConcurrentHashMap<>();
        final List<Delivery> got = new ArrayList<>();

        Receiver() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.createContext("/", exchange -> {
                byte[] body;
                try (InputStream in = exchange.getRequestBody()) {
                    body = in.readAllBytes();
                }
                String path = exchange.getRequestURI().getPath();
                Delivery seen = new Delivery(
                        path,
                        exchange.getRequestHeaders().getFirst("webhook-id"),
                        exchange.getRequestHeaders().getFirst("webhook-timestamp"),
                        exchange.getRequestHeaders().getFirst("webhook-signature"),
                        body,
                        0);
                int status = rules.getOrDefault(path, d -> 200).apply(seen);
                synchronized (got) {
                    got.add(new Delivery(path, seen.id(), seen.timestamp(), seen.signature(), body, status));
                }
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        List<Delivery> at(String path) {
            synchronized (got) {
                return got.stream().filter(d -> d.path().equals(path)).toList();
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    record Pushed(Walk.Monitor monitor, String subscription, String token, String secret) {}

    @BeforeAll
    static void start() throws Exception {
        kafka = EmbeddedKafka.start(data.resolve("kafka"), 0);
        receiver = new Receiver();
        // Side by side: one after the other would take two JVM starts on a loaded machine.
        CompletableFuture<ServerProcess> one = CompletableFuture.supplyAsync(() -> gateway("push-a"));
        CompletableFuture<ServerProcess> two = CompletableFuture.supplyAsync(() -> gateway("push-b"));
        first = one.join();
        second = two.join();
        a = new Walk(new Http(first.baseUri()));
        b = new Walk(new Http(second.baseUri()));
        await("one of the gateways runs the push").atMost(GENEROUS).until(() -> pusher(first) || pusher(second));
    }

    private static ServerProcess gateway(String instance) {
        try {
            return ServerProcess.builder()
                    .env("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers())
                    .env(
                            "MP_DATA",
                            Files.createDirectories(data.resolve(instance)).toString())
                    .env("MP_INSTANCE_ID", instance)
                    // The push needs only the gateway role; the Streams apps would only slow the start.
                    .env("MP_ROLES", "gateway")
                    .env("MP_ADMIN_TOKEN", ADMIN)
                    .env("MP_PUSH_ALLOW_HOSTS", "127.0.0.1")
                    .env("MP_PUSH_RETRY_BASE", "100ms")
                    .env("MP_PUSH_RETRY_MAX", "400ms")
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {second, first, receiver}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // the others are still closed
            }
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    /** Whether this gateway's log says it holds the push now. */
    private static boolean pusher(ServerProcess server) {
        String log = server.log();
        return server.isAlive() && log.lastIndexOf(PUSHING) > log.lastIndexOf(NOT_PUSHING);
    }

    private static Pushed subscribe(Walk via, Walk.Monitor m, String subscriber, String path) {
        Http.Response r = via.http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"" + subscriber
                        + "\",\"protocol\":\"http\",\"sink\":\"" + receiver.url(path)
                        + "\",\"from\":\"head\",\"filter\":{\"types\":[\"com.example.ci.run\"]}}",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        Schemas.assertValid("subscription", r.json().get("subscription"));
        assertThat(r.json().at("/subscription/push/active").asBoolean()).isTrue();
        return new Pushed(
                m,
                r.json().at("/subscription/id").asText(),
                r.json().get("token").asText(),
                r.json().get("push_secret").asText());
    }

    private static Walk.Monitor monitor(String limits) {
        return a.monitorWith("{\"name\":\"push\",\"horizon\":\"minute\",\"capabilities\":[\"observe\"],"
                + "\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]" + limits + "}");
    }

    private static long cursor(Pushed p) {
        return a.pull(new Walk.Reader(p.subscription(), p.token()), "?limit=1")
                .json()
                .get("cursor")
                .asLong();
    }

    @Test
    @Order(1)
    void deliveriesAreSignedInOrderOncePerObservationAndTheCursorFollows() {
        String path = "/in-order";
        Walk.Monitor m = monitor("");
        Pushed p = subscribe(b, m, "hook:in-order", path);
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            seqs.add((i % 2 == 0 ? a : b).publish(m, "build-" + i));
        }

        await("every observation delivered")
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).size() >= seqs.size());
        await("the cursor past the last one").atMost(GENEROUS).until(() -> cursor(p) > seqs.get(seqs.size() - 1));

        List<Delivery> got = receiver.at(path);
        assertThat(got).extracting(Delivery::seq).containsExactlyElementsOf(seqs);
        assertThat(got).allMatch(Delivery::ok).allMatch(d -> d.signedWith(p.secret()));
        assertThat(got)
                .extracting(Delivery::id)
                .containsExactlyElementsOf(
                        seqs.stream().map(seq -> p.subscription() + "_" + seq).toList());
        assertThat(got.get(0).json().get("type").asText()).isEqualTo("com.example.ci.run");
        // Shown once: the admin snapshot has the subscription, never its secret.
        Http.Response snapshot = a.http.get("/mp/v0/admin/snapshot", ADMIN);
        assertThat(snapshot.status()).isEqualTo(200);
        assertThat(snapshot.body()).contains(p.subscription()).doesNotContain(p.secret());
        assertThat(first.log() + second.log()).doesNotContain(p.secret());
    }

    @Test
    @Order(2)
    void aReceiverFailingThreeTimesGetsTheSameIdAgainAndTheCursorMovesOnlyAfterItsTwoHundred() {
        String path = "/flaky";
        java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger(3);
        receiver.rules.put(path, d -> failures.getAndDecrement() > 0 ? 500 : 200);
        Walk.Monitor m = monitor("");
        Pushed p = subscribe(a, m, "hook:flaky", path);
        long seq = a.publish(m, "flaky-build");

        await("delivered after three failures")
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).stream().anyMatch(Delivery::ok));
        await("the cursor past it").atMost(GENEROUS).until(() -> cursor(p) > seq);

        List<Delivery> got = receiver.at(path);
        assertThat(got).hasSize(4);
        assertThat(got).extracting(Delivery::answered).containsExactly(500, 500, 500, 200);
        assertThat(got).extracting(Delivery::id).containsOnly(p.subscription() + "_" + seq);
        assertThat(got).allMatch(d -> d.signedWith(p.secret()));
        assertThat(got.get(3).json().get("redelivered").asBoolean()).isTrue();
    }

    @Test
    @Order(3)
    void theCursorStaysWhileTheReceiverFails() {
        String path = "/down";
        java.util.concurrent.atomic.AtomicBoolean up = new java.util.concurrent.atomic.AtomicBoolean();
        receiver.rules.put(path, d -> up.get() ? 200 : 503);
        Walk.Monitor m = monitor(",\"limits\":{\"delivery_count_limit\":1000}");
        Pushed p = subscribe(a, m, "hook:down", path);
        long seq = b.publish(m, "while-down");

        await("tried a few times")
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).size() >= 3);
        long whileDown = cursor(p);
        up.set(true);
        await("the cursor past it once the receiver answers").atMost(GENEROUS).until(() -> cursor(p) > seq);

        assertThat(whileDown)
                .as("no 2xx yet, so the cursor had not moved past it")
                .isLessThanOrEqualTo(seq);
        assertThat(receiver.at(path)).extracting(Delivery::id).containsOnly(p.subscription() + "_" + seq);
    }

    @Test
    @Order(4)
    void aReceiverAnsweringGoneDisablesThePushVisiblyOnTheSubscription() {
        String path = "/gone";
        receiver.rules.put(path, d -> 410);
        Walk.Monitor m = monitor("");
        Pushed p = subscribe(a, m, "hook:gone", path);
        long seq = a.publish(m, "to-nobody");

        await("the subscription's push is disabled").atMost(GENEROUS).until(() -> {
            for (JsonNode s : a.http.get("/mp/v0/admin/snapshot", ADMIN).json().get("subscriptions")) {
                if (s.get("id").asText().equals(p.subscription())) {
                    return s.path("push_disabled").isObject();
                }
            }
            return false;
        });
        Http.Response renewed = b.http.post("/mp/v0/subscriptions/" + p.subscription() + "/renew", "{}", p.token());
        assertThat(renewed.status()).as(renewed.body()).isEqualTo(200);
        long later = a.publish(m, "also-to-nobody");
        await("nothing more is pushed")
                .during(Duration.ofSeconds(2))
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).size() == 1);

        assertThat(receiver.at(path)).extracting(Delivery::seq).containsExactly(seq);
        assertThat(renewed.json().at("/subscription/push/active").asBoolean()).isFalse();
        JsonNode disabled = renewed.json().at("/subscription/push/disabled");
        assertThat(disabled.get("status").asInt()).isEqualTo(410);
        assertThat(disabled.get("seq").asLong()).isEqualTo(seq);
        Pushed rekeyed =
                new Pushed(m, p.subscription(), renewed.json().get("token").asText(), p.secret());
        assertThat(cursor(rekeyed)).isLessThanOrEqualTo(seq).isLessThan(later);
        JsonNode row = logRows(m).stream()
                .filter(o -> o.get("actor").asText().equals("system:push"))
                .findFirst()
                .orElseThrow();
        assertThat(row.get("type").asText()).isEqualTo("ai.mentu.monitor.subscribed");
        assertThat(row.at("/data/payload/push/status").asInt()).isEqualTo(410);
    }

    @Test
    @Order(5)
    void theDeliveryCountLimitDeadLettersAnObservationAndThePushGoesOn() {
        String path = "/poison";
        receiver.rules.put(path, d -> d.json().get("subject").asText().equals("poison") ? 500 : 200);
        Walk.Monitor m = monitor(",\"limits\":{\"delivery_count_limit\":3}");
        Pushed p = subscribe(a, m, "hook:poison", path);
        long poison = a.publish(m, "poison");
        long fine = a.publish(m, "fine");

        await("the next observation delivered")
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).stream().anyMatch(d -> d.ok() && d.seq() == fine));
        await("the cursor past both").atMost(GENEROUS).until(() -> cursor(p) > fine);

        List<Delivery> got = receiver.at(path);
        assertThat(got).extracting(Delivery::seq).containsExactly(poison, poison, poison, fine);
        JsonNode dead = logRows(m).stream()
                .filter(o -> o.get("type").asText().equals("ai.mentu.monitor.lease")
                        && o.at("/data/payload/dead_letter").asBoolean())
                .findFirst()
                .orElseThrow();
        assertThat(dead.get("actor").asText()).isEqualTo("system:push");
        assertThat(dead.get("subject").asText()).isEqualTo("poison");
        assertThat(dead.at("/data/payload/subscription").asText()).isEqualTo(p.subscription());
        assertThat(dead.at("/data/payload/seq").asLong()).isEqualTo(poison);
        assertThat(dead.at("/data/payload/attempts").asInt()).isEqualTo(3);
        assertThat(dead.at("/data/payload/action").asText()).isEqualTo("reject");
        assertThat(dead.get("id").asLong()).isLessThan(fine + 2);
    }

    @Test
    @Order(6)
    void aPrivateSinkIsRefusedUnlessConfigurationAllowsItsHost() {
        Walk.Monitor m = monitor("");
        Http.Response refused = a.http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"hook:private\",\"protocol\":\"http\",\"sink\":\"http://10.1.2.3/hook\"}",
                null);
        Http.Response noSink = a.http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"hook:nosink\",\"protocol\":\"http\"}",
                null);
        Http.Response otherLoopback = a.http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"hook:loopback\",\"protocol\":\"http\",\"sink\":\"http://127.0.0.2:1/hook\"}",
                null);

        Walk.assertRefused(refused, 400, "INVALID");
        assertThat(refused.json().get("sink").asText()).isEqualTo("http://10.1.2.3/hook");
        Walk.assertRefused(noSink, 400, "INVALID");
        // 127.0.0.1 is allowed by this class's MP_PUSH_ALLOW_HOSTS; another loopback address is not.
        Walk.assertRefused(otherLoopback, 400, "INVALID");
        assertThat(a.http.get("/mp/v0/discover", null)
                        .json()
                        .at("/capabilities/feeds/http")
                        .asBoolean())
                .isTrue();
    }

    @Test
    @Order(7)
    void onePusherAcrossTwoGatewaysAndAKillNineOfItLosesNothing() {
        String path = "/failover";
        Walk.Monitor m = monitor("");
        Pushed p = subscribe(a, m, "hook:failover", path);
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            seqs.add((i % 2 == 0 ? a : b).publish(m, "before-" + i));
        }
        await("the first ten delivered")
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).size() >= 10);
        assertThat(pusher(first) ^ pusher(second))
                .as("exactly one gateway holds the push")
                .isTrue();
        List<Delivery> beforeKill = receiver.at(path);

        ServerProcess pushing = pusher(first) ? first : second;
        ServerProcess surviving = pushing == first ? second : first;
        Walk survivor = pushing == first ? b : a;
        pushing.kill9();
        for (int i = 0; i < 10; i++) {
            seqs.add(survivor.publish(m, "after-" + i));
        }

        await("the survivor runs the push").atMost(GENEROUS).until(() -> pusher(surviving));
        await("every observation delivered")
                .atMost(GENEROUS)
                .until(() -> receiver.at(path).stream()
                        .filter(Delivery::ok)
                        .map(Delivery::seq)
                        .collect(java.util.stream.Collectors.toSet())
                        .containsAll(seqs));

        // Before the kill one gateway pushed: every observation exactly once.
        assertThat(beforeKill).extracting(Delivery::seq).containsExactlyElementsOf(seqs.subList(0, 10));
        List<Delivery> got = receiver.at(path);
        assertThat(got).allMatch(d -> d.signedWith(p.secret()));
        assertThat(got).allMatch(d -> d.id().equals(p.subscription() + "_" + d.seq()));
        // In order: what arrives is the log's order, a redelivery after the takeover at most repeating a tail of it.
        List<Long> firstSeen = new ArrayList<>(
                new LinkedHashSet<>(got.stream().map(Delivery::seq).toList()));
        assertThat(firstSeen).containsExactlyElementsOf(seqs);
        Map<Long, Integer> times = new HashMap<>();
        got.forEach(d -> times.merge(d.seq(), 1, Integer::sum));
        assertThat(times.values().stream().filter(n -> n > 1).count())
                .as("only the delivery in flight at the kill may come twice")
                .isLessThanOrEqualTo(1);
    }

    /** The observations in the monitor's log, read through a plain pull subscription from the start. */
    private static List<JsonNode> logRows(Walk.Monitor m) {
        Walk.Reader reader = a.subscribe(m, "agent:audit-" + UUID.randomUUID());
        List<JsonNode> rows = new ArrayList<>();
        a.pull(reader, "?cursor=1&limit=200").json().get("observations").forEach(rows::add);
        return rows;
    }
}
