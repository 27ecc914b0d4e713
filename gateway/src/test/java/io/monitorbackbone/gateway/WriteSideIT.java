package io.monitorbackbone.gateway;

import static io.monitorbackbone.gateway.Walk.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The write side's rules, each refusal next to the request that the same rule lets through. */
class WriteSideIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    private Http.Response publish(Walk.Monitor m, String body) {
        return http.post("/mp/v0/monitors/" + m.id() + "/observations", body, m.ownerToken());
    }

    private List<JsonNode> log(Walk.Monitor m) {
        Walk.Reader witness = walk.subscribe(m, "agent:witness-" + System.nanoTime());
        List<JsonNode> out = new ArrayList<>();
        walk.pull(witness, "?cursor=1&limit=200").json().get("observations").forEach(out::add);
        return out;
    }

    @Test
    void c02UnknownFilterKeyIsRefusedWithTheKnownKeys() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]}");

        Http.Response typo = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:a\",\"filter\":{\"typo\":[\"x\"]}}",
                null);
        Http.Response fine = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:b\",\"filter\":{\"types\":[\"com.example.*\"]}}",
                null);

        assertRefused(typo, 400, "INVALID_FILTER");
        assertThat(typo.json().get("known_keys").toString()).contains("types", "#<tag>");
        assertThat(fine.status()).isEqualTo(201);
    }

    @Test
    void c03UnknownTypeIsRefusedWithTheKnownTypes() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]}");

        Http.Response unknown = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:a\",\"filter\":{\"types\":[\"com.nobody.never\"]}}",
                null);
        Http.Response declared = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:b\",\"filter\":{\"types\":[\"com.example.ci.run\"]}}",
                null);

        assertRefused(unknown, 400, "INVALID_FILTER");
        assertThat(unknown.json().get("known_types").toString())
                .contains("com.example.ci.run", "ai.mentu.monitor.configured");
        assertThat(declared.status()).isEqualTo(201);
    }

    @Test
    void c04AnAgentCannotAssertSrcButTheHumanOwnerCan() {
        Walk.Monitor m = walk.monitorWith("{\"owner\":\"human:alice\",\"visibility\":\"public\"}");

        Http.Response agent = publish(m, "{\"type\":\"demo.note\",\"actor\":\"agent:x\",\"tier\":\"src\"}");
        Http.Response owner = publish(m, "{\"type\":\"demo.note\",\"tier\":\"src\"}");

        assertRefused(agent, 400, "TIER_NOT_ASSERTABLE");
        assertThat(agent.json().get("rejected_seq").asLong()).isPositive();
        assertThat(owner.status()).isEqualTo(201);
        assertThat(owner.json().at("/observation/tier").asText()).isEqualTo("src");
    }

    @Test
    void c09AndC10EveryObservationIsACloudEventWithAStrictlyIncreasingSequence() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"horizon\":\"hour\"}");
        for (int i = 0; i < 5; i++) {
            assertThat(publish(m, "{\"type\":\"demo.note\",\"subject\":\"n-" + i + "\"}")
                            .status())
                    .isEqualTo(201);
        }

        List<JsonNode> log = log(m);

        String previous = "";
        for (JsonNode o : log) {
            for (String attribute : List.of(
                    "specversion",
                    "id",
                    "source",
                    "type",
                    "time",
                    "datacontenttype",
                    "sequence",
                    "tier",
                    "origin",
                    "verified",
                    "horizon",
                    "actor")) {
                assertThat(o.hasNonNull(attribute)).as(attribute + " in " + o).isTrue();
            }
            assertThat(o.get("specversion").asText()).isEqualTo("1.0");
            assertThat(o.get("horizon").asText()).isEqualTo("hour");
            assertThat(o.get("sequence").asText()).matches("[0-9]{20}").isGreaterThan(previous);
            assertThat(Long.parseLong(o.get("sequence").asText()))
                    .isEqualTo(Long.parseLong(o.get("id").asText()));
            previous = o.get("sequence").asText();
        }
        assertThat(log).hasSizeGreaterThanOrEqualTo(6);
    }

    @Test
    void c14PauseResumeAndRetireAreLoggedAndAPausedMonitorRefusesPublishes() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");

        Http.Response paused =
                http.post("/mp/v0/monitors/" + m.id() + "/pause", "{\"reason\":\"maintenance\"}", m.ownerToken());
        Http.Response whilePaused = publish(m, "{\"type\":\"demo.note\",\"subject\":\"while-paused\"}");
        Http.Response resumed = http.post("/mp/v0/monitors/" + m.id() + "/resume", "{}", m.ownerToken());
        Http.Response afterResume = publish(m, "{\"type\":\"demo.note\"}");
        Http.Response retired =
                http.post("/mp/v0/monitors/" + m.id() + "/retire", "{\"reason\":\"done\"}", m.ownerToken());
        Http.Response afterRetire = publish(m, "{\"type\":\"demo.note\"}");
        Http.Response resumeRetired = http.post("/mp/v0/monitors/" + m.id() + "/resume", "{}", m.ownerToken());
        Http.Response stranger = http.post("/mp/v0/monitors/" + m.id() + "/pause", "{}", "not-the-owner");

        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.json().at("/monitor/active").asBoolean()).isFalse();
        assertThat(paused.json().get("seq").asLong())
                .isEqualTo(paused.json().at("/monitor/head").asLong());
        assertRefused(whilePaused, 409, "UNAVAILABLE");
        assertThat(whilePaused.json().at("/live/reason").asText()).isEqualTo("paused");
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(afterResume.status()).isEqualTo(201);
        assertThat(retired.status()).isEqualTo(200);
        assertRefused(afterRetire, 409, "UNAVAILABLE");
        assertThat(afterRetire.json().at("/live/reason").asText()).isEqualTo("retired");
        assertRefused(resumeRetired, 409, "UNAVAILABLE");
        assertRefused(stranger, 401, "UNAUTHORIZED");
        assertThat(walk.state(m).json().at("/live/reason").asText()).isEqualTo("retired");

        List<String> rows = log(m).stream()
                .map(o -> o.get("type").asText() + ":"
                        + o.at("/data/payload/action")
                                .asText(o.at("/data/payload/code").asText()))
                .toList();
        assertThat(rows)
                .containsSubsequence(
                        "ai.mentu.monitor.configured:create",
                        "ai.mentu.monitor.configured:pause",
                        "ai.mentu.monitor.rejected:UNAVAILABLE",
                        "ai.mentu.monitor.configured:resume",
                        "demo.note:",
                        "ai.mentu.monitor.configured:retire",
                        "ai.mentu.monitor.rejected:UNAVAILABLE");
    }

    @Test
    void anUpdateRaisesTheVersionAndRecordsWhatChanged() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"name\":\"before\"}");

        Http.Response updated = http.post(
                "/mp/v0/monitors/" + m.id() + "/update",
                "{\"patch\":{\"name\":\"after\",\"ttl_seconds\":7200},\"reason\":\"rename\",\"rule\":\"r1\"}",
                m.ownerToken());
        Http.Response badValue =
                http.post("/mp/v0/monitors/" + m.id() + "/update", "{\"patch\":{\"horizon\":\"eon\"}}", m.ownerToken());
        Http.Response notPatchable = http.post(
                "/mp/v0/monitors/" + m.id() + "/update", "{\"patch\":{\"owner\":\"human:me\"}}", m.ownerToken());

        assertThat(updated.status()).as(updated.body()).isEqualTo(200);
        Schemas.assertValid("monitor", updated.json().get("monitor"));
        assertThat(updated.json().at("/monitor/version").asInt()).isEqualTo(2);
        assertThat(updated.json().at("/monitor/name").asText()).isEqualTo("after");
        assertRefused(badValue, 400, "UNKNOWN_VOCABULARY");
        assertRefused(notPatchable, 400, "INVALID");
        JsonNode row = log(m).stream()
                .filter(o -> o.at("/data/payload/action").asText().equals("update"))
                .findFirst()
                .orElseThrow();
        assertThat(row.at("/data/payload/before_digest").asText()).matches("[0-9a-f]{64}");
        assertThat(row.at("/data/payload/diff/name/before").asText()).isEqualTo("before");
        assertThat(row.at("/data/payload/diff/name/after").asText()).isEqualTo("after");
        assertThat(row.at("/data/payload/diff").has("head")).isFalse();
        assertThat(row.at("/data/payload/reason").asText()).isEqualTo("rename");
        assertThat(row.at("/data/payload/rule").asText()).isEqualTo("r1");
    }

    @Test
    void c16ARefusedInputIsKeptWithItsRawBody() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");

        Http.Response refused = publish(m, "{\"type\":\"demo.note\",\"tier\":\"bogus\",\"data\":{\"k\":1}}");
        Http.Response notJson = publish(m, "{oops");
        Http.Response accepted = publish(m, "{\"type\":\"demo.note\",\"tier\":\"derived\"}");

        assertRefused(refused, 400, "UNKNOWN_VOCABULARY");
        assertThat(refused.json().get("invalid").toString()).contains("tier:bogus");
        assertRefused(notJson, 400, "INVALID");
        assertThat(accepted.status()).isEqualTo(201);
        List<JsonNode> rejected = log(m).stream()
                .filter(o -> o.get("type").asText().equals("ai.mentu.monitor.rejected"))
                .toList();
        assertThat(rejected).hasSize(2);
        assertThat(rejected.get(0).at("/data/payload/raw/data/k").asInt()).isEqualTo(1);
        assertThat(rejected.get(0).get("id").asLong())
                .isEqualTo(refused.json().get("rejected_seq").asLong());
        assertThat(rejected.get(1).at("/data/payload/raw").asText()).isEqualTo("{oops");
        assertThat(walk.state(m).json().at("/counters/rejected").asInt()).isEqualTo(2);
    }

    @Test
    void c18VisibilityHidesPrivateAndSharedMonitorsFromStrangers() {
        Http.Response shared = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + SharedServer.uniqueId("sh")
                        + "\",\"visibility\":\"shared\",\"capabilities\":[\"observe\",\"act\"]}",
                null);
        String id = shared.json().at("/monitor/id").asText();
        String subscribeToken = shared.json().get("subscribe_token").asText();

        assertThat(http.get("/mp/v0/monitors/" + id, null).status()).isEqualTo(404);
        assertThat(http.get("/mp/v0/monitors/" + id + "/state", null).status()).isEqualTo(404);
        assertThat(http.get("/mp/v0/monitors", null).json().get("monitors"))
                .extracting(x -> x.get("id").asText())
                .doesNotContain(id);
        assertRefused(
                http.post("/mp/v0/subscriptions", "{\"monitor\":\"" + id + "\",\"subscriber\":\"agent:s\"}", null),
                404,
                "NOT_FOUND");

        assertThat(http.get("/mp/v0/monitors/" + id, subscribeToken).status()).isEqualTo(200);
        assertThat(http.get("/mp/v0/monitors/" + id + "/state", subscribeToken).status())
                .isEqualTo(200);
        assertThat(http.get("/mp/v0/monitors", subscribeToken).json().get("monitors"))
                .extracting(x -> x.get("id").asText())
                .contains(id);
        Http.Response subscribed = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + id + "\",\"subscriber\":\"agent:s\",\"capabilities\":[\"observe\",\"act\"]}",
                subscribeToken);
        assertThat(subscribed.status()).isEqualTo(201);
        assertThat(subscribed.json().at("/subscription/capabilities").toString())
                .contains("act");
    }

    @Test
    void c21ACorrectionSupersedesWithoutChangingTheOriginal() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        long original = publish(m, "{\"type\":\"demo.reading\",\"subject\":\"r\",\"data\":{\"v\":41}}")
                .json()
                .get("seq")
                .asLong();

        Http.Response correction = publish(
                m,
                "{\"type\":\"demo.reading\",\"subject\":\"r\",\"data\":{\"v\":42},\"supersedes\":{\"source\":\"monitor:"
                        + m.id() + "\",\"id\":\"" + original + "\"},\"wasDerivedFrom\":[{\"source\":\"monitor:" + m.id()
                        + "\",\"id\":\"" + original + "\"}],\"rule\":\"fix@1\"}");

        assertThat(correction.status()).isEqualTo(201);
        assertThat(correction
                        .json()
                        .at("/observation/data/provenance/supersedes/id")
                        .asText())
                .isEqualTo(String.valueOf(original));
        assertThat(correction.json().at("/observation/data/provenance/rule").asText())
                .isEqualTo("fix@1");
        JsonNode stored = log(m).stream()
                .filter(o -> o.get("id").asLong() == original)
                .findFirst()
                .orElseThrow();
        assertThat(stored.at("/data/v").asInt()).isEqualTo(41);
        assertThat(stored.at("/data/provenance/supersedes").isNull()).isTrue();
    }

    @Test
    void c26EveryProvenanceInflationIsRefused() {
        Walk.Monitor bot = walk.monitorWith("{\"owner\":\"agent:bot\",\"visibility\":\"public\"}");
        Walk.Monitor alice = walk.monitorWith("{\"owner\":\"human:alice\",\"visibility\":\"public\"}");
        Map<String, Walk.Monitor> inflations = Map.of(
                "{\"type\":\"x.y\",\"origin\":\"human\"}", bot,
                "{\"type\":\"x.y\",\"tier\":\"src\",\"origin\":\"human\"}", bot,
                "{\"type\":\"x.y\",\"verification\":\"certified\",\"origin\":\"probe\"}", bot,
                "{\"type\":\"x.y\",\"verification\":\"human_verified\",\"origin\":\"probe\"}", bot,
                "{\"type\":\"x.y\",\"actor\":\"agent:evil\",\"origin\":\"human\"}", alice,
                "{\"type\":\"x.y\",\"actor\":\"agent:evil\",\"on_behalf_of\":\"human:bob\",\"origin\":\"human\"}",
                        alice,
                "{\"type\":\"x.y\",\"actor\":\"probe:p\",\"tier\":\"src\"}", alice);

        inflations.forEach((body, m) -> {
            Http.Response r = publish(m, body);
            assertThat(r.status()).as(body + " -> " + r.body()).isIn(400, 403);
            assertThat(r.json().get("code").asText()).isIn("PROVENANCE_CEILING", "TIER_NOT_ASSERTABLE");
        });
        Http.Response vouched = publish(
                alice,
                "{\"type\":\"x.y\",\"actor\":\"agent:worker\",\"on_behalf_of\":\"human:alice\",\"tier\":\"src\",\"origin\":\"human\",\"verification\":\"human_verified\"}");
        Http.Response machine =
                publish(bot, "{\"type\":\"x.y\",\"origin\":\"probe\",\"verification\":\"machine_verified\"}");
        assertThat(vouched.status()).as(vouched.body()).isEqualTo(201);
        assertThat(machine.status()).as(machine.body()).isEqualTo(201);
    }

    @Test
    void protocolRowsNeverTakeAHumanOriginFromAChosenName() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");

        walk.subscribe(m, "human:mallory");

        JsonNode row = log(m).stream()
                .filter(o -> "human:mallory".equals(o.get("actor").asText()))
                .findFirst()
                .orElseThrow();
        assertThat(row.get("origin").asText()).isEqualTo("agent");
        assertThat(row.get("verified").asText()).isNotIn("human_verified", "certified");
        assertThat(row.at("/data/provenance/origin").asText()).isEqualTo("agent");
    }

    @Test
    void c28AStrangerCannotBeGrantedActButTheOwnerCan() {
        Walk.Monitor m =
                walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"react\",\"act\"]}");

        Http.Response stranger = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:greedy\",\"capabilities\":[\"observe\",\"act\"]}",
                null);
        Http.Response owner = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:trusted\",\"capabilities\":[\"observe\",\"act\"]}",
                m.ownerToken());
        Http.Response observeOnly = http.post(
                "/mp/v0/subscriptions", "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:modest\"}", null);

        assertRefused(stranger, 403, "CAPABILITY_MISSING");
        assertThat(stranger.json().get("granted").toString()).isEqualTo("[\"observe\"]");
        assertThat(owner.status()).isEqualTo(201);
        assertThat(owner.json().at("/subscription/capabilities").toString()).contains("act");
        assertThat(observeOnly.status()).isEqualTo(201);
    }

    @Test
    void c30AWebPageOrARebindingHostIsRefused() {
        Http.Response foreign = http.request("GET", "/mp/v0/discover", null, Map.of("Origin", "https://evil.example"));
        Http.Response preflight =
                http.request("OPTIONS", "/mp/v0/monitors", null, Map.of("Origin", "https://evil.example"));
        Http.Response noOrigin = http.get("/mp/v0/discover", null);

        assertRefused(foreign, 403, "ORIGIN_REFUSED");
        assertRefused(preflight, 403, "ORIGIN_REFUSED");
        assertThat(noOrigin.status()).isEqualTo(200);
    }

    @Test
    void rulesReactMechanicallyAndNameThemselves() {
        Walk.Monitor m = walk.monitorWith(
                "{\"visibility\":\"public\",\"rules\":[{\"id\":\"page\",\"version\":\"3\",\"when\":{\"types\":[\"com.example.ci.run\"],\"#status\":[\"failed\"]},\"then\":\"escalate:oncall\"},"
                        + "{\"id\":\"deploy\",\"when\":{\"subjects\":[\"prod\"]},\"then\":\"run:deploy.sh\"}]}");

        long failed = publish(
                        m, "{\"type\":\"com.example.ci.run\",\"subject\":\"b-1\",\"tags\":{\"status\":\"failed\"}}")
                .json()
                .get("seq")
                .asLong();
        publish(m, "{\"type\":\"com.example.ci.run\",\"subject\":\"b-2\",\"tags\":{\"status\":\"passed\"}}");
        long prod = publish(m, "{\"type\":\"demo.note\",\"subject\":\"prod\"}")
                .json()
                .get("seq")
                .asLong();

        List<JsonNode> reactions = log(m).stream()
                .filter(o -> o.get("type").asText().startsWith("io.monitorbackbone.rule."))
                .toList();
        assertThat(reactions).hasSize(2);
        JsonNode escalation = reactions.get(0);
        assertThat(escalation.get("type").asText()).isEqualTo("io.monitorbackbone.rule.escalate");
        assertThat(escalation.get("id").asLong()).isEqualTo(failed + 1);
        assertThat(escalation.at("/data/provenance/rule").asText()).isEqualTo("page@3");
        assertThat(escalation.at("/data/provenance/wasDerivedFrom/0/id").asText())
                .isEqualTo(String.valueOf(failed));
        assertThat(escalation.at("/data/payload/target").asText()).isEqualTo("oncall");
        assertThat(escalation.get("tier").asText()).isEqualTo("derived");
        JsonNode run = reactions.get(1);
        assertThat(run.at("/data/provenance/rule").asText()).isEqualTo("deploy@1");
        assertThat(run.at("/data/payload/executed").asBoolean()).isFalse();
        assertThat(run.at("/data/payload/matched/id").asText()).isEqualTo(String.valueOf(prod));
    }

    private Http.Response batch(Walk.Monitor m, String body, String bearer) {
        return http.post("/mp/v0/monitors/" + m.id() + "/observations/batch", body, bearer);
    }

    @Test
    void aBatchIsAnsweredItemByItemInOrderAndEveryRefusedItemIsARejectedRow() {
        Walk.Monitor m = walk.monitorWith("{\"owner\":\"human:alice\",\"visibility\":\"public\"}");

        Http.Response r = batch(
                m,
                "{\"observations\":[{\"type\":\"demo.note\",\"subject\":\"a\"},"
                        + "{\"type\":\"demo.note\",\"tier\":\"bogus\",\"data\":{\"k\":1}},"
                        + "7,"
                        + "{\"type\":\"demo.note\",\"actor\":\"agent:x\",\"tier\":\"src\"},"
                        + "{\"type\":\"demo.note\",\"subject\":\"b\",\"data\":{\"n\":5}}]}",
                m.ownerToken());

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode results = r.json().get("results");
        assertThat(results).extracting(x -> x.get("status").asInt()).containsExactly(201, 400, 400, 400, 201);
        assertThat(results.get(1).get("code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(results.get(2).get("code").asText()).isEqualTo("INVALID");
        assertThat(results.get(3).get("code").asText()).isEqualTo("TIER_NOT_ASSERTABLE");
        for (int i = 1; i <= 3; i++) {
            Schemas.assertValid("error", results.get(i));
        }
        List<Long> seqs = new ArrayList<>();
        results.forEach(x -> seqs.add(
                x.has("seq") ? x.get("seq").asLong() : x.get("rejected_seq").asLong()));
        assertThat(seqs).as("each item's row, in item order").isSorted().doesNotHaveDuplicates();
        assertThat(r.json().get("accepted").asInt()).isEqualTo(2);
        assertThat(r.json().get("rejected").asInt()).isEqualTo(3);
        assertThat(r.json().get("failed").asInt()).isZero();

        Map<Long, JsonNode> bySeq = new java.util.HashMap<>();
        log(m).forEach(o -> bySeq.put(o.get("id").asLong(), o));
        assertThat(bySeq.get(seqs.get(0)).get("subject").asText()).isEqualTo("a");
        assertThat(bySeq.get(seqs.get(1)).get("type").asText()).isEqualTo("ai.mentu.monitor.rejected");
        assertThat(bySeq.get(seqs.get(1)).at("/data/payload/raw/data/k").asInt())
                .isEqualTo(1);
        assertThat(bySeq.get(seqs.get(2)).at("/data/payload/raw").asInt()).isEqualTo(7);
        assertThat(bySeq.get(seqs.get(3)).at("/data/payload/code").asText()).isEqualTo("TIER_NOT_ASSERTABLE");
        assertThat(bySeq.get(seqs.get(4)).at("/data/n").asInt()).isEqualTo(5);
        assertThat(walk.state(m).json().at("/counters/rejected").asInt()).isEqualTo(3);
    }

    @Test
    void aBatchPastItsLimitsIsTooLargeAndRecordedAndOneAtThemIsServed() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        JsonNode limits = http.get("/mp/v0/discover", null).json();
        int max = limits.at("/limits/max_batch_observations").asInt();
        assertThat(max).isEqualTo(1_000);
        assertThat(limits.at("/limits/max_batch_bytes").asInt()).isEqualTo(1_048_576);
        assertThat(limits.at("/capabilities/extensions/io.monitorbackbone~1batch-publish/max_observations")
                        .asInt())
                .isEqualTo(max);

        StringBuilder items = new StringBuilder();
        for (int i = 0; i < max; i++) {
            items.append(i == 0 ? "" : ",")
                    .append("{\"type\":\"demo.note\",\"subject\":\"s-")
                    .append(i % 7)
                    .append("\"}");
        }
        Http.Response full = batch(m, "{\"observations\":[" + items + "]}", m.ownerToken());
        Http.Response tooMany = batch(m, "{\"observations\":[" + items + ",{\"type\":\"demo.note\"}]}", m.ownerToken());
        String big = "x".repeat(1_048_576);
        Http.Response tooBig = batch(
                m, "{\"observations\":[{\"type\":\"demo.note\",\"data\":{\"t\":\"" + big + "\"}}]}", m.ownerToken());
        Http.Response notABatch = batch(m, "{\"type\":\"demo.note\"}", m.ownerToken());
        Http.Response stranger = batch(m, "{\"observations\":[{\"type\":\"demo.note\"}]}", "not-the-owner");

        assertThat(full.status()).as(full.body()).isEqualTo(200);
        assertThat(full.json().get("accepted").asInt()).isEqualTo(max);
        assertRefused(tooMany, 413, "TOO_LARGE");
        assertThat(tooMany.json().get("count").asInt()).isEqualTo(max + 1);
        assertRefused(tooBig, 413, "TOO_LARGE");
        assertRefused(notABatch, 400, "INVALID");
        assertRefused(stranger, 401, "UNAUTHORIZED");
        Walk.Reader witness = walk.subscribe(m, "agent:witness");
        JsonNode all =
                walk.pull(witness, "?cursor=1&limit=5000&large_pages=true").json();
        assertThat(all.get("observations")).hasSize(max + 5); // configured, the batch, 3 rejected, subscribed
        List<Long> rejected = java.util.stream.StreamSupport.stream(
                        all.get("observations").spliterator(), false)
                .filter(o -> o.get("type").asText().equals("ai.mentu.monitor.rejected"))
                .map(o -> o.get("id").asLong())
                .toList();
        assertThat(rejected)
                .containsExactly(
                        tooMany.json().get("rejected_seq").asLong(),
                        tooBig.json().get("rejected_seq").asLong(),
                        notABatch.json().get("rejected_seq").asLong());
        assertThat(walk.state(m).json().at("/counters/rejected").asInt()).isEqualTo(3);
    }
}
