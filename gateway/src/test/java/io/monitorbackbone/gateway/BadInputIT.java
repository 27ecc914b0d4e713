package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random and hostile bodies on every write endpoint: never a 5xx, always a protocol error body, the server keeps
 * serving, and every refused publish is in the monitor's log.
 */
class BadInputIT {
    private static final List<String> FIELDS = List.of(
            "id",
            "name",
            "type",
            "subject",
            "actor",
            "tier",
            "origin",
            "verification",
            "data",
            "tags",
            "time",
            "supersedes",
            "wasDerivedFrom",
            "on_behalf_of",
            "monitor",
            "subscriber",
            "capabilities",
            "filter",
            "from",
            "cursor",
            "patch",
            "visibility",
            "horizon",
            "rules",
            "source",
            "default_grant",
            "types",
            "ttl_seconds",
            "jsonrpc",
            "method",
            "params",
            "limit",
            "wait");
    private static final HttpClient RAW =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    @Test
    void noBodyEverMakesTheServerFail() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("fuzz"));
        Walk.Reader reader = walk.subscribe(m, "agent:fuzz");
        List<String> paths = List.of(
                "/mp/v0/monitors",
                "/mp/v0/monitors/" + m.id() + "/observations",
                "/mp/v0/subscriptions",
                "/mp/v0/subscriptions/" + reader.subscription() + "/ack",
                "/mp/v0/monitors/" + m.id() + "/update",
                "/mp/v0/rpc");
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            bodies.add(randomJson(random, 0).toString().getBytes(StandardCharsets.UTF_8));
        }
        bodies.add(new byte[0]);
        bodies.add("null".getBytes(StandardCharsets.UTF_8));
        bodies.add("[1,2,3]".getBytes(StandardCharsets.UTF_8));
        bodies.add("\"just a string\"".getBytes(StandardCharsets.UTF_8));
        bodies.add(new byte[] {'{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'});
        bodies.add(("{\"type\":\"a.b\",\"data\":" + "[".repeat(5000) + "]".repeat(5000) + "}")
                .getBytes(StandardCharsets.UTF_8));
        bodies.add(("{\"type\":\"a.b\",\"data\":" + "{\"k\":".repeat(150) + "1" + "}".repeat(150) + "}")
                .getBytes(StandardCharsets.UTF_8));
        bodies.add(("{\"type\":\"a.b\",\"subject\":\"" + "s".repeat(900_000) + "\"}").getBytes(StandardCharsets.UTF_8));
        bodies.add(("{\"actor\":\"agent:" + "a".repeat(300_000) + "\",\"type\":\"a.b\",\"data\":{\"x\":\""
                        + "\\u0001".repeat(100_000) + "\"}}")
                .getBytes(StandardCharsets.UTF_8));
        bodies.add(("{\"type\":\"a.b\",\"ttl_seconds\":1e400,\"cursor\":99999999999999999999999,\"from\":-1}")
                .getBytes(StandardCharsets.UTF_8));
        bodies.add("{\"type\":\"a.b\",\"data\":\""
                .concat("x".repeat(2_000_000))
                .concat("\"}")
                .getBytes(StandardCharsets.UTF_8));

        int refusedPublishes = 0;
        for (String path : paths) {
            for (byte[] body : bodies) {
                for (String contentType : List.of("application/json", "application/x-www-form-urlencoded")) {
                    HttpResponse<String> r = post(
                            path,
                            body,
                            contentType,
                            path.contains("/observations") || path.endsWith("/update")
                                    ? m.ownerToken()
                                    : reader.token());
                    String what = "seed " + seed + " POST " + path + " (" + body.length + " bytes): " + r.statusCode()
                            + " " + r.body().substring(0, Math.min(300, r.body().length()));
                    assertThat(r.statusCode()).as(what).isLessThan(500);
                    JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
                    if (path.endsWith("/rpc")) {
                        assertThat(json.has("result") || json.has("error") || json.isArray())
                                .as(what)
                                .isTrue();
                    } else if (r.statusCode() >= 400) {
                        assertThat(json.path("code").isTextual()).as(what).isTrue();
                        assertThat(json.path("done").isArray()).as(what).isTrue();
                    }
                    if (path.endsWith("/observations") && r.statusCode() >= 400) {
                        refusedPublishes++;
                        assertThat(json.path("rejected_seq").asLong()).as(what).isPositive();
                    }
                }
            }
        }

        int expected = refusedPublishes;
        assertThat(http.get("/mp/v0/discover", null).status()).isEqualTo(200);
        await("every refused publish is counted as rejected")
                .atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(
                                walk.state(m).json().at("/counters/rejected").asInt())
                        .isEqualTo(expected));
        assertThat(expected).isGreaterThan(10);
    }

    /**
     * Issue 12: what the parser accepted beside the document, and what it acknowledged but could not store as sent, is
     * refused INVALID over REST and JSON-RPC; a refused publish is still recorded.
     */
    @Test
    void inputThatIsNotExactlyOneFaithfulDocumentIsRefusedInvalid() throws Exception {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("strict"));
        String publish = "/mp/v0/monitors/" + m.id() + "/observations";
        String ok = "{\"type\":\"com.example.ci.run\",\"subject\":\"s\"}";
        List<String> bad = List.of(
                ok + " garbage",
                ok + ok,
                ok + "\n{\"type\":\"com.example.ci.run\"}",
                "{\"type\":\"com.example.ci.run\",\"type\":\"com.example.ci.run\"}",
                "{\"type\":\"com.example.ci.run\",\"data\":{\"k\":1,\"k\":2}}",
                "{\"type\":\"com.example.ci.run\",\"subject\":\"\\ud800\"}",
                "{\"type\":\"com.example.ci.run\",\"subject\":\"a\\udc00b\"}",
                "{\"type\":\"com.example.ci.run\",\"data\":{\"\\ud800\":true}}",
                "{\"type\":\"com.example.ci.run\",\"data\":{\"n\":1e400}}",
                "{\"type\":\"com.example.ci.run\",\"data\":{\"n\":-1e400}}");
        int refused = 0;
        for (String body : bad) {
            HttpResponse<String> r =
                    post(publish, body.getBytes(StandardCharsets.UTF_8), "application/json", m.ownerToken());
            JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
            assertThat(r.statusCode()).as(body + " -> " + r.body()).isEqualTo(400);
            assertThat(json.path("code").asText()).as(body).isEqualTo("INVALID");
            assertThat(json.path("rejected_seq").asLong()).as(body).isPositive();
            refused++;

            String call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"monitors/publish\",\"params\":{\"monitor\":\""
                    + m.id() + "\"," + body.substring(1) + "}";
            HttpResponse<String> rpc =
                    post("/mp/v0/rpc", call.getBytes(StandardCharsets.UTF_8), "application/json", m.ownerToken());
            JsonNode answer = new com.fasterxml.jackson.databind.ObjectMapper().readTree(rpc.body());
            assertThat(rpc.statusCode()).as(call + " -> " + rpc.body()).isLessThan(500);
            assertThat(answer.has("result")).as(call + " -> " + rpc.body()).isFalse();
            assertThat(answer.at("/error/data/code").asText())
                    .as(call + " -> " + rpc.body())
                    .isEqualTo("INVALID");
        }
        for (String rpcBody : List.of(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/discover\"}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"monitors/discover\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/discover\",\"method\":\"monitors/list\"}",
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/discover\"}] ]")) {
            HttpResponse<String> rpc =
                    post("/mp/v0/rpc", rpcBody.getBytes(StandardCharsets.UTF_8), "application/json", null);
            JsonNode answer = new com.fasterxml.jackson.databind.ObjectMapper().readTree(rpc.body());
            assertThat(answer.at("/error/data/code").asText())
                    .as(rpcBody + " -> " + rpc.body())
                    .isEqualTo("INVALID");
        }
        HttpResponse<String> create = post(
                "/mp/v0/monitors",
                ("{\"id\":\"" + SharedServer.uniqueId("dup")
                                + "\",\"visibility\":\"public\",\"visibility\":\"private\"}")
                        .getBytes(StandardCharsets.UTF_8),
                "application/json",
                null);
        assertThat(create.statusCode()).as(create.body()).isEqualTo(400);
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(create.body())
                        .path("code")
                        .asText())
                .isEqualTo("INVALID");

        // What is acknowledged is what is stored: a surrogate pair and a large finite number come back as sent.
        HttpResponse<String> fine = post(
                publish,
                "{\"type\":\"com.example.ci.run\",\"subject\":\"\\ud83d\\ude00\",\"data\":{\"n\":1e300}}"
                        .getBytes(StandardCharsets.UTF_8),
                "application/json",
                m.ownerToken());
        assertThat(fine.statusCode()).as(fine.body()).isEqualTo(201);
        JsonNode acked = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(fine.body())
                .get("observation");
        Walk.Reader reader = walk.subscribe(m, "agent:strict");
        JsonNode stored = walk.pull(reader, "?cursor=" + acked.get("id").asText() + "&limit=1")
                .json()
                .get("observations")
                .get(0);
        assertThat(stored.get("subject").asText())
                .isEqualTo("\uD83D\uDE00")
                .isEqualTo(acked.get("subject").asText());
        assertThat(stored.at("/data/n")).isEqualTo(acked.at("/data/n"));
        int expected = refused;
        await("every refused publish is counted as rejected")
                .atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(
                                walk.state(m).json().at("/counters/rejected").asInt())
                        .isEqualTo(expected));
    }

    private HttpResponse<String> post(String path, byte[] body, String contentType, String bearer) throws Exception {
        URI base = http.base();
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", contentType)
                .header("Authorization", "Bearer " + bearer)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        return RAW.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode randomJson(Random random, int depth) {
        var f = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
        int kind = depth > 3 ? random.nextInt(5) : random.nextInt(7);
        switch (kind) {
            case 0:
                return f.nullNode();
            case 1:
                return f.booleanNode(random.nextBoolean());
            case 2:
                return random.nextBoolean()
                        ? f.numberNode(random.nextLong())
                        : f.numberNode(random.nextDouble() * 1e12 - 5e11);
            case 3:
                return f.textNode(randomText(random));
            case 4:
                return f.textNode(List.of(
                                "src",
                                "human",
                                "agent",
                                "head",
                                "earliest",
                                "human:x",
                                "agent:y",
                                "demo.note",
                                "a.b.*",
                                "public",
                                "shared",
                                "observe",
                                "act",
                                "-1",
                                "1e3",
                                "")
                        .get(random.nextInt(16)));
            case 5: {
                var a = f.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    a.add(randomJson(random, depth + 1));
                }
                return a;
            }
            default: {
                var o = f.objectNode();
                for (int i = random.nextInt(6); i > 0; i--) {
                    String key =
                            random.nextInt(4) == 0 ? randomText(random) : FIELDS.get(random.nextInt(FIELDS.size()));
                    o.set(key, randomJson(random, depth + 1));
                }
                return o;
            }
        }
    }

    private static String randomText(Random random) {
        StringBuilder b = new StringBuilder();
        for (int i = random.nextInt(20); i > 0; i--) {
            b.append((char) (random.nextBoolean() ? 32 + random.nextInt(95) : random.nextInt(0x3000)));
        }
        return b.toString();
    }
}
