package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's walkthrough, request for request, against a real server process on a real broker. */
class GatewayWalkthroughIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    @Test
    void theWalkthroughWorksAsWritten() {
        String id = SharedServer.uniqueId("ci");

        Http.Response created = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + id
                        + "\",\"name\":\"CI\",\"horizon\":\"minute\",\"capabilities\":[\"observe\"],\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]}",
                null);
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.json().get("owner_token").asText()).matches("[A-Za-z0-9_-]{32}");
        assertThat(created.json().at("/monitor/head").asLong()).isEqualTo(1);
        Schemas.assertValid("monitor", created.json().get("monitor"));
        String ownerToken = created.json().get("owner_token").asText();

        Http.Response published = http.post(
                "/mp/v0/monitors/" + id + "/observations",
                "{\"type\":\"com.example.ci.run\",\"subject\":\"build-412\",\"actor\":\"probe:ci\",\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"status\":\"failed\"}}",
                ownerToken);
        assertThat(published.status()).isEqualTo(201);
        JsonNode observation = published.json().get("observation");
        Schemas.assertValid("observation", observation);
        assertThat(published.json().get("seq").asLong()).isEqualTo(2);
        assertThat(observation.get("id").asText()).isEqualTo("2");
        assertThat(observation.get("sequence").asText()).isEqualTo("00000000000000000002");
        assertThat(observation.get("source").asText()).isEqualTo("monitor:" + id);
        assertThat(observation.at("/data/status").asText()).isEqualTo("failed");
        assertThat(observation.at("/data/provenance/verification").asText()).isEqualTo("machine_verified");

        Http.Response subscribed = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + id + "\",\"subscriber\":\"agent:claude\",\"capabilities\":[\"observe\"]}",
                null);
        assertThat(subscribed.status()).isEqualTo(201);
        Schemas.assertValid("subscription", subscribed.json().get("subscription"));
        String subscription = subscribed.json().at("/subscription/id").asText();
        String readerToken = subscribed.json().get("token").asText();

        Http.Response pulled = http.get("/mp/v0/subscriptions/" + subscription + "/pull?wait=25", readerToken);
        assertThat(pulled.status()).isEqualTo(200);
        assertThat(pulled.headers().firstValue("X-MP-Batch-Type")).hasValue("application/cloudevents-batch+json");
        List<String> types = new ArrayList<>();
        pulled.json().get("observations").forEach(o -> {
            Schemas.assertValid("observation", o);
            types.add(o.get("type").asText());
        });
        assertThat(types)
                .containsExactly("ai.mentu.monitor.configured", "com.example.ci.run", "ai.mentu.monitor.subscribed");
        assertThat(pulled.json().get("head").asLong()).isEqualTo(3);
        assertThat(pulled.json().get("next").asLong()).isEqualTo(4);
        assertThat(pulled.json().get("lag").asLong()).isEqualTo(3);
        assertThat(pulled.json().get("cursor").asLong()).isZero();

        Http.Response acked =
                http.post("/mp/v0/subscriptions/" + subscription + "/ack", "{\"cursor\": 5}", readerToken);
        assertThat(acked.status()).isEqualTo(200);
        assertThat(acked.json().get("cursor").asLong()).isEqualTo(4);
        assertThat(acked.json().get("head").asLong()).isEqualTo(3);
        assertThat(acked.json().get("lag").asLong()).isZero();

        Http.Response state = http.get("/mp/v0/monitors/" + id + "/state", null);
        assertThat(state.status()).isEqualTo(200);
        Schemas.assertValid("state", state.json());
        assertThat(state.json().get("head").asLong()).isEqualTo(3);
        assertThat(state.json().at("/counters/observations").asLong()).isEqualTo(3);
        assertThat(state.json().at("/live/value").asBoolean()).isTrue();
        assertThat(state.json().at("/confidence/value").isNull()).isTrue();
        // One producer's one report: corroboration and track record can be computed (as 0 and 1); independence needs
        // the human owner's declaration, so the value stays null and says which input is missing.
        assertThat(state.json().at("/confidence/inputs/missing").toString()).contains("independence");
        assertThat(state.json().at("/confidence/inputs/present").toString()).contains("corroboration", "track_record");
    }

    @Test
    void aPullDoesNotMoveTheCursorAndAnAckedObservationDoesNotComeBack() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("queue"));
        long first = walk.publish(m, "a");
        Walk.Reader reader = walk.subscribe(m, "agent:q");

        JsonNode once = walk.pull(reader, "").json();
        JsonNode twice = walk.pull(reader, "").json();

        assertThat(twice.get("cursor")).isEqualTo(once.get("cursor"));
        assertThat(twice.get("observations").size())
                .isEqualTo(once.get("observations").size());
        assertThat(once.get("redelivered").asInt()).isZero();
        assertThat(twice.get("redelivered").asInt()).isEqualTo(3);
        twice.get("observations")
                .forEach(o -> assertThat(o.get("redelivered").asBoolean()).isTrue());
        once.get("observations").forEach(o -> assertThat(o.has("redelivered")).isFalse());

        walk.ack(reader, first + 1);
        JsonNode after = walk.pull(reader, "").json();
        assertThat(after.get("observations"))
                .extracting(o -> o.get("id").asText())
                .doesNotContain("1", String.valueOf(first));
    }

    @Test
    void ackBelowTheCursorIsRefusedAndAnEqualAckAnswersTheSame() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("ack"));
        walk.publish(m, "a");
        Walk.Reader reader = walk.subscribe(m, "agent:a");
        JsonNode first = walk.ack(reader, 3).json();

        Http.Response again = walk.ack(reader, 3);
        Http.Response backwards =
                http.post("/mp/v0/subscriptions/" + reader.subscription() + "/ack", "{\"cursor\": 2}", reader.token());
        Http.Response notANumber = http.post(
                "/mp/v0/subscriptions/" + reader.subscription() + "/ack", "{\"cursor\": \"abc\"}", reader.token());

        assertThat(again.json()).isEqualTo(first);
        assertThat(backwards.status()).isEqualTo(409);
        assertThat(backwards.json().get("code").asText()).isEqualTo("CURSOR_BACKWARDS");
        assertThat(backwards.json().get("cursor").asLong()).isEqualTo(3);
        Schemas.assertValid("error", backwards.json());
        assertThat(notANumber.status()).isEqualTo(400);
        assertThat(notANumber.json().get("code").asText()).isEqualTo("INVALID");
    }

    @Test
    void aParkedPullReturnsSoonAfterAPublish() throws Exception {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("park"));
        Walk.Reader reader = walk.subscribe(m, "agent:p");
        walk.ack(reader, 3);

        var parked = java.util.concurrent.CompletableFuture.supplyAsync(() -> walk.pull(reader, "?wait=20"));
        org.awaitility.Awaitility.await("the pull stays parked while nothing arrives")
                .during(java.time.Duration.ofMillis(800))
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> !parked.isDone());
        long published = System.nanoTime();
        long seq = walk.publish(m, "late");
        JsonNode woken = parked.get(10, java.util.concurrent.TimeUnit.SECONDS).json();
        long tookMs = (System.nanoTime() - published) / 1_000_000;

        assertThat(woken.get("observations")).hasSize(1);
        assertThat(woken.at("/observations/0/id").asText()).isEqualTo(String.valueOf(seq));
        // Loose on purpose: the number itself belongs to docs/benchmarks.md; this only proves the tail wakes the pull.
        assertThat(tookMs).isLessThan(5_000);
    }

    @Test
    void trafficOnOneMonitorMovesNeitherHeadNorLagOfAnother() {
        Walk.Monitor quiet = walk.createMonitor(SharedServer.uniqueId("quiet"));
        Walk.Monitor busy = walk.createMonitor(SharedServer.uniqueId("busy"));
        Walk.Reader reader = walk.subscribe(quiet, "agent:iso");
        walk.ack(reader, 3);
        JsonNode before = walk.pull(reader, "").json();

        for (int i = 0; i < 25; i++) {
            walk.publish(busy, "b-" + i);
        }
        JsonNode after = walk.pull(reader, "").json();

        assertThat(before.get("lag").asLong()).isZero();
        assertThat(after.get("head")).isEqualTo(before.get("head"));
        assertThat(after.get("lag").asLong()).isZero();
        assertThat(walk.state(quiet).json().get("head")).isEqualTo(before.get("head"));
        assertThat(walk.state(busy).json().get("head").asLong()).isEqualTo(26);
    }

    @Test
    void aDuplicateIdIsRefusedByKafkasTopicCreation() {
        String id = SharedServer.uniqueId("dup");
        walk.createMonitor(id);

        Http.Response again = http.post("/mp/v0/monitors", "{\"id\":\"" + id + "\"}", null);

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("code").asText()).isEqualTo("DUPLICATE");
        assertThat(again.json().get("id").asText()).isEqualTo(id);
        Schemas.assertValid("error", again.json());
    }

    @Test
    void everyRefusalIsAProtocolErrorBody() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("err"));
        Walk.Reader reader = walk.subscribe(m, "agent:e");
        record Case(int status, String code, Http.Response response) {}
        List<Case> cases = List.of(
                new Case(404, "NOT_FOUND", http.get("/nope", null)),
                new Case(404, "NOT_FOUND", http.get("/mp/v0/nope", null)),
                new Case(404, "NOT_FOUND", http.request("PUT", "/mp/v0/monitors", "{}", java.util.Map.of())),
                new Case(404, "NOT_FOUND", http.get("/mp/v0/subscriptions", null)),
                new Case(400, "INVALID", http.post("/mp/v0/monitors", "{not json", null)),
                new Case(400, "INVALID", http.post("/mp/v0/monitors", "{\"id\":\"bad id!\"}", null)),
                new Case(400, "UNKNOWN_VOCABULARY", http.post("/mp/v0/monitors", "{\"horizon\":\"decade\"}", null)),
                new Case(
                        401,
                        "UNAUTHORIZED",
                        http.post("/mp/v0/monitors/" + m.id() + "/observations", "{\"type\":\"a.b\"}", "wrong")),
                new Case(
                        401,
                        "UNAUTHORIZED",
                        http.post("/mp/v0/monitors/" + m.id() + "/observations", "{\"type\":\"a.b\"}", null)),
                new Case(
                        401,
                        "UNAUTHORIZED",
                        http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull", "wrong")),
                new Case(404, "NOT_FOUND", http.get("/mp/v0/subscriptions/sub-nope/pull", reader.token())),
                new Case(
                        400,
                        "INVALID",
                        http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull?cursor=abc", reader.token())),
                new Case(
                        400,
                        "INVALID_FILTER",
                        http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull?typo=1", reader.token())),
                new Case(404, "NOT_FOUND", http.get("/mp/v0/monitors/no-such-monitor", null)),
                new Case(
                        403,
                        "ORIGIN_REFUSED",
                        http.request(
                                "GET", "/mp/v0/discover", null, java.util.Map.of("Origin", "https://evil.example"))),
                new Case(
                        413,
                        "TOO_LARGE",
                        http.post("/mp/v0/monitors", "{\"name\":\"" + "x".repeat(1_100_000) + "\"}", null)));

        for (Case c : cases) {
            assertThat(c.response().status()).as(c.response().body()).isEqualTo(c.status());
            assertThat(c.response().json()).as(c.response().body()).isNotNull();
            assertThat(c.response().json().get("code").asText()).isEqualTo(c.code());
            assertThat(c.response().headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
            Schemas.assertValid("error", c.response().json());
        }
    }

    @Test
    void aRefusedPublishIsRecordedAsARejectedObservation() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("rej"));
        Walk.Reader reader = walk.subscribe(m, "agent:r");

        Http.Response refused = http.post(
                "/mp/v0/monitors/" + m.id() + "/observations",
                "{\"type\":\"com.example.ci.run\",\"actor\":\"agent:x\",\"tier\":\"src\"}",
                m.ownerToken());

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("code").asText()).isEqualTo("TIER_NOT_ASSERTABLE");
        long rejectedSeq = refused.json().get("rejected_seq").asLong();
        JsonNode rejected = walk.pull(reader, "?cursor=" + rejectedSeq).json().at("/observations/0");
        assertThat(rejected.get("type").asText()).isEqualTo("ai.mentu.monitor.rejected");
        assertThat(rejected.at("/data/payload/raw/tier").asText()).isEqualTo("src");
        assertThat(rejected.at("/data/payload/code").asText()).isEqualTo("TIER_NOT_ASSERTABLE");
    }

    @Test
    void discoverAndListServeTheirShapes() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("list"));

        Http.Response discover = http.get("/mp/v0/discover", null);
        Http.Response list = http.get("/mp/v0/monitors", null);
        Http.Response one = http.get("/mp/v0/monitors/" + m.id(), null);

        assertThat(discover.status()).isEqualTo(200);
        assertThat(discover.json().get("supportedVersions").toString()).contains("0.1");
        assertThat(discover.json().at("/limits/max_limit").asInt()).isEqualTo(200);
        assertThat(discover.json()
                        .at("/capabilities/leases/delivery_count_limit")
                        .asInt())
                .isEqualTo(5);
        assertThat(discover.json()
                        .at("/capabilities/leases/lease_duration_seconds/max")
                        .asLong())
                .isEqualTo(86_400);
        assertThat(list.status()).isEqualTo(200);
        list.json().get("monitors").forEach(mon -> Schemas.assertValid("monitor", mon));
        assertThat(list.json().get("monitors"))
                .extracting(mon -> mon.get("id").asText())
                .contains(m.id());
        assertThat(one.status()).isEqualTo(200);
        Schemas.assertValid("monitor", one.json());
        assertThat(one.json().get("head").asLong()).isEqualTo(1);
    }

    @Test
    void aPrivateMonitorIsInvisibleWithoutItsOwnerToken() {
        String id = SharedServer.uniqueId("priv");
        Http.Response created = http.post("/mp/v0/monitors", "{\"id\":\"" + id + "\"}", null);
        String owner = created.json().get("owner_token").asText();

        assertThat(http.get("/mp/v0/monitors/" + id, null).status()).isEqualTo(404);
        assertThat(http.get("/mp/v0/monitors/" + id, owner).status()).isEqualTo(200);
        assertThat(http.get("/mp/v0/monitors", null).json().get("monitors"))
                .extracting(mon -> mon.get("id").asText())
                .doesNotContain(id);
        assertThat(http.get("/mp/v0/monitors", owner).json().get("monitors"))
                .extracting(mon -> mon.get("id").asText())
                .contains(id);
    }
}
