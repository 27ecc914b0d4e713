package io.monitorbackbone.conform;

import static io.monitorbackbone.conform.CheckClient.expect;
import static io.monitorbackbone.conform.CheckClient.fail;
import static io.monitorbackbone.conform.CheckClient.refused;
import static io.monitorbackbone.conform.CheckClient.that;
import static io.monitorbackbone.conform.J.a;
import static io.monitorbackbone.conform.J.o;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The write side: filters and vocabularies, the provenance ceiling, refusals as evidence, configuration as observations. */
final class WriteChecks {
    static final String NOTE = CheckClient.BASE_TYPE + ".note";
    static final List<String> FILTER_KEYS = List.of(
            "types",
            "sources",
            "subjects",
            "actors",
            "tiers",
            "origins",
            "horizons",
            "since",
            "until",
            "limit",
            "text");
    private static final Set<String> REFUSED_INFLATION = Set.of("PROVENANCE_CEILING", "TIER_NOT_ASSERTABLE");

    private WriteChecks() {}

    static List<Check> all() {
        return List.of(
                new Check("C02", "unknown filter key → INVALID_FILTER with known_keys", WriteChecks::c02),
                new Check("C03", "unknown type → INVALID_FILTER with known_types", WriteChecks::c03),
                new Check("C04", "agent + src → TIER_NOT_ASSERTABLE", WriteChecks::c04),
                new Check(
                        "C14",
                        "pause/resume/retire/subscription retire each logged; publish while paused → UNAVAILABLE",
                        WriteChecks::c14),
                new Check("C15", "state fields, missing inputs listed", WriteChecks::c15),
                new Check("C16", "rejected input visible as rejected observation with the raw body", WriteChecks::c16),
                new Check("C21", "supersedes recorded, original unchanged", WriteChecks::c21),
                new Check("C26", "every provenance inflation refused", WriteChecks::c26));
    }

    private static void knowsEveryFilterKey(Wire.Reply r) {
        JsonNode known = r.json().path("known_keys");
        that(known.isArray(), r.describe() + " carries no known_keys array");
        List<String> keys = new ArrayList<>();
        known.forEach(k -> keys.add(k.asText()));
        for (String key : FILTER_KEYS) {
            that(keys.contains(key), r.describe() + ": known_keys " + keys + " lacks '" + key + "'");
        }
    }

    static String c02(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o("types", a(NOTE)));

        Wire.Reply typo = api.subscribeRaw(m, o("subscriber", "agent:typo", "filter", o("typo", a("x"))), null);
        Wire.Reply created = api.createMonitor(
                o("id", api.uid("m"), "owner", "human:conform", "visibility", "public", "filter", o("typo", 1)));
        CheckClient.Reader fine = api.subscribe(
                m, o("subscriber", "agent:fine", "filter", o("types", a(CheckClient.BASE_TYPE + ".*"))), null);
        Wire.Reply inline = api.pullRaw(fine, "?typo=1");

        for (Wire.Reply r : List.of(typo, created, inline)) {
            refused(r, 400, "INVALID_FILTER");
            knowsEveryFilterKey(r);
        }
        api.pull(fine, "");
        return "a 'typo' key is refused with known_keys in subscribe, create and pull; a valid filter is accepted";
    }

    static String c03(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o("types", a(NOTE)));

        Wire.Reply unknown =
                api.subscribeRaw(m, o("subscriber", "agent:a", "filter", o("types", a("com.nobody.never"))), null);
        Wire.Reply declared = api.subscribeRaw(m, o("subscriber", "agent:b", "filter", o("types", a(NOTE))), null);

        refused(unknown, 400, "INVALID_FILTER");
        JsonNode known = unknown.json().path("known_types");
        that(known.isArray(), unknown.describe() + " carries no known_types array");
        String listed = known.toString();
        that(
                listed.contains("\"" + NOTE + "\""),
                "known_types " + Wire.cut(listed, 200) + " lacks the declared type " + NOTE);
        that(
                listed.contains("\"ai.mentu.monitor.configured\""),
                "known_types lacks the protocol type ai.mentu.monitor.configured");
        that(!listed.contains("com.nobody.never"), "known_types lists the unknown type it refused");
        expect(declared, 201);
        return "an undeclared type is refused with known_types (declared and protocol types); the declared type is accepted";
    }

    static String c04(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o("owner", "human:conform-alice"));

        Wire.Reply agent = api.publishRaw(m, o("type", NOTE, "actor", "agent:x", "tier", "src"));
        Wire.Reply owner = api.publishRaw(m, o("type", NOTE, "tier", "src"));

        refused(agent, 400, "TIER_NOT_ASSERTABLE");
        expect(owner, 201);
        that(
                "src".equals(owner.json().at("/observation/tier").asText()),
                "the human owner's src observation was served with tier "
                        + owner.json().at("/observation/tier"));
        return "agent:x asserting src is refused; the human owner asserting src is accepted";
    }

    private static String row(JsonNode o) {
        String type = o.path("type").asText();
        JsonNode payload = o.at("/data/payload");
        String detail = payload.path("action").asText(payload.path("code").asText(""));
        return type + (detail.isEmpty() ? "" : ":" + detail);
    }

    static String c14(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o());
        CheckClient.Reader reader = api.subscribe(m, o("subscriber", "agent:leaving"), null);
        CheckClient.Reader witness = api.subscribe(m, o("subscriber", "agent:witness"), m.ownerToken());

        Wire.Reply paused = api.configure(m, "pause", o("reason", "maintenance"));
        Wire.Reply whilePaused = api.publishRaw(m, o("type", NOTE, "subject", "while-paused"));
        Wire.Reply resumed = api.configure(m, "resume", o("reason", "back"));
        Wire.Reply afterResume = api.publishRaw(m, o("type", NOTE, "subject", "after-resume"));
        Wire.Reply retiredReader =
                api.wire.post("/subscriptions/" + reader.id() + "/retire", o("reason", "leaving"), reader.token());
        Wire.Reply retired = api.configure(m, "retire", o("reason", "done"));
        Wire.Reply afterRetire = api.publishRaw(m, o("type", NOTE, "subject", "after-retire"));

        expect(paused, 200);
        that(
                !paused.json().at("/monitor/active").asBoolean(true),
                paused.describe() + " answered a monitor that is still active");
        refused(whilePaused, 409, "UNAVAILABLE");
        expect(resumed, 200);
        expect(afterResume, 201);
        expect(retiredReader, 200);
        expect(retired, 200);
        refused(afterRetire, 409, "UNAVAILABLE");

        List<JsonNode> log = api.readAll(witness, "");
        List<String> rows = log.stream().map(WriteChecks::row).toList();
        List<String> wanted = List.of(
                "ai.mentu.monitor.configured:pause",
                "ai.mentu.monitor.rejected:UNAVAILABLE",
                "ai.mentu.monitor.configured:resume",
                NOTE,
                "ai.mentu.monitor.subscription_retired",
                "ai.mentu.monitor.configured:retire",
                "ai.mentu.monitor.rejected:UNAVAILABLE");
        int at = 0;
        for (String r : rows) {
            if (at < wanted.size() && r.equals(wanted.get(at))) {
                at++;
            }
        }
        that(
                at == wanted.size(),
                "the log lacks '" + (at < wanted.size() ? wanted.get(at) : "") + "' in the order " + wanted
                        + "; it holds " + Wire.cut(rows.toString(), 300));
        JsonNode will = log.stream()
                .filter(o -> o.path("type").asText().equals("ai.mentu.monitor.subscription_retired"))
                .findFirst()
                .orElseThrow();
        that(
                reader.id().equals(will.at("/data/payload/subscription").asText()),
                "the subscription_retired row names " + will.at("/data/payload/subscription") + ", not " + reader.id());
        return "pause, resume, subscription retire and retire are logged in order; publishes while paused and retired are refused and logged";
    }

    static String c15(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o("ttl_seconds", 3600));

        JsonNode fresh = api.state(m);
        long seq = api.note(m, "s-1");
        JsonNode after = api.state(m);

        for (JsonNode s : List.of(fresh, after)) {
            that(
                    m.id().equals(s.path("monitor").asText()),
                    "state.monitor is " + s.path("monitor") + ", not " + m.id());
            JsonNode confidence = s.get("confidence");
            JsonNode missing = confidence.at("/inputs/missing");
            that(missing.isArray(), "confidence.inputs.missing is not a list");
            if (missing.size() > 0) {
                that(
                        confidence.get("value").isNull(),
                        "confidence.value is " + confidence.get("value") + " although inputs are missing: " + missing);
            } else {
                that(
                        confidence.get("value").isNumber(),
                        "no input is missing but confidence.value is " + confidence.get("value"));
            }
            that(
                    s.at("/ages/since_last_pull_s").isNull(),
                    "nobody ever pulled, yet ages.since_last_pull_s is " + s.at("/ages/since_last_pull_s")
                            + " (unknowable is null, never 0)");
            that(s.path("head").asLong(-1) >= 0, "state.head is " + s.get("head"));
        }
        that(
                fresh.at("/ages/since_last_source_contact_s").isNull(),
                "before any publish ages.since_last_source_contact_s is "
                        + fresh.at("/ages/since_last_source_contact_s") + " (unknowable is null, never 0)");
        that(after.path("head").asLong() >= seq, "after publishing seq " + seq + " state.head is " + after.get("head"));
        that(
                after.at("/last/seq").asLong() == after.path("head").asLong(),
                "state.last.seq " + after.at("/last/seq") + " is not state.head " + after.get("head"));
        that(
                after.at("/ages/since_last_source_contact_s").isIntegralNumber(),
                "after a publish ages.since_last_source_contact_s is " + after.at("/ages/since_last_source_contact_s"));
        JsonNode missing = after.at("/confidence/inputs/missing");
        return "every field present; "
                + (missing.size() > 0
                        ? "missing inputs " + missing + " listed with value null"
                        : "no input missing and a value given")
                + "; unknowable ages are null";
    }

    static String c16(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o());
        String nonce = api.uid("raw");

        Wire.Reply refused = api.publishRaw(m, o("type", NOTE, "tier", "bogus", "data", o("nonce", nonce)));
        Wire.Reply accepted = api.publishRaw(m, o("type", NOTE, "tier", "derived", "data", o("nonce", nonce + "-ok")));

        refused(refused, 400, "UNKNOWN_VOCABULARY");
        expect(accepted, 201);
        List<JsonNode> rejected = api.log(m, "&types=ai.mentu.monitor.rejected");
        JsonNode row = rejected.stream()
                .filter(o -> nonce.equals(o.at("/data/payload/raw/data/nonce").asText()))
                .findFirst()
                .orElseThrow(() ->
                        fail("no ai.mentu.monitor.rejected row carries the refused body in data.payload.raw; rows: "
                                + Wire.cut(rejected.toString(), 200)));
        that(
                "bogus".equals(row.at("/data/payload/raw/tier").asText()),
                "the rejected row's raw body lost tier 'bogus': " + row.at("/data/payload/raw"));
        JsonNode rejectedSeq = refused.json().get("rejected_seq");
        if (rejectedSeq != null) {
            that(
                    rejectedSeq.asText().equals(row.path("id").asText()),
                    "the refusal names rejected_seq " + rejectedSeq + " but the rejected row is seq "
                            + row.path("id").asText());
        }
        that(
                rejected.stream()
                        .noneMatch(o -> (nonce + "-ok")
                                .equals(o.at("/data/payload/raw/data/nonce").asText())),
                "the accepted publish was logged as rejected too");
        return "the refused publish is rejected row " + row.path("id").asText()
                + " with the raw body; the accepted one is not";
    }

    static String c21(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o());
        JsonNode original =
                api.publish(m, o("type", CheckClient.BASE_TYPE + ".reading", "subject", "r", "data", o("v", 41)));
        String originalId = original.get("id").asText();
        ObjectNode pointer = o("source", m.source(), "id", originalId);

        JsonNode correction = api.publish(
                m,
                o(
                        "type",
                        CheckClient.BASE_TYPE + ".reading",
                        "subject",
                        "r",
                        "data",
                        o("v", 42),
                        "supersedes",
                        pointer,
                        "wasDerivedFrom",
                        a(pointer)));

        that(
                pointer.equals(correction.at("/data/provenance/supersedes")),
                "the correction's provenance.supersedes is " + correction.at("/data/provenance/supersedes") + ", not "
                        + pointer);
        List<JsonNode> log = api.log(m);
        JsonNode stored = log.stream()
                .filter(o -> originalId.equals(o.path("id").asText()))
                .findFirst()
                .orElseThrow(() -> fail("the original observation " + originalId + " is gone from the log"));
        that(stored.at("/data/v").asInt() == 41, "the original now says v=" + stored.at("/data/v") + " instead of 41");
        JsonNode sup = stored.at("/data/provenance/supersedes");
        that(sup.isMissingNode() || sup.isNull(), "the original gained a supersedes: " + sup);
        String correctionId = correction.get("id").asText();
        JsonNode logged = log.stream()
                .filter(o -> correctionId.equals(o.path("id").asText()))
                .findFirst()
                .orElseThrow(() -> fail("the correction " + correctionId + " is not in the log"));
        that(pointer.equals(logged.at("/data/provenance/supersedes")), "the logged correction lost its supersedes");
        return "correction " + correctionId + " supersedes " + originalId + ", which is unchanged in the log";
    }

    static String c26(CheckClient api) {
        CheckClient.Monitor bot = api.monitor(o("owner", "agent:conform-bot"));
        CheckClient.Monitor alice = api.monitor(o("owner", "human:conform-alice"));
        Map<String, Object[]> inflations = new LinkedHashMap<>();
        inflations.put(
                "agent-owned monitor claims origin human", new Object[] {bot, o("type", NOTE, "origin", "human")});
        inflations.put(
                "agent-owned monitor claims src",
                new Object[] {bot, o("type", NOTE, "tier", "src", "origin", "human")});
        inflations.put("agent-owned monitor asserts src", new Object[] {bot, o("type", NOTE, "tier", "src")});
        inflations.put(
                "agent-owned monitor claims certified",
                new Object[] {bot, o("type", NOTE, "verification", "certified", "origin", "probe")});
        inflations.put(
                "agent-owned monitor claims human_verified",
                new Object[] {bot, o("type", NOTE, "verification", "human_verified", "origin", "probe")});
        inflations.put("agent names a human it does not act for", new Object[] {
            bot, o("type", NOTE, "actor", "agent:other", "on_behalf_of", "human:conform-alice", "origin", "human")
        });
        inflations.put(
                "agent actor carries origin human",
                new Object[] {alice, o("type", NOTE, "actor", "agent:evil", "origin", "human")});
        inflations.put("agent acts for someone other than the owner", new Object[] {
            alice, o("type", NOTE, "actor", "agent:evil", "on_behalf_of", "human:bob", "origin", "human")
        });
        inflations.put("probe asserts src", new Object[] {alice, o("type", NOTE, "actor", "probe:p", "tier", "src")});

        for (Map.Entry<String, Object[]> e : inflations.entrySet()) {
            CheckClient.Monitor m = (CheckClient.Monitor) e.getValue()[0];
            Wire.Reply r = api.publishRaw(m, (ObjectNode) e.getValue()[1]);
            that(
                    (r.status() == 400 || r.status() == 403) && REFUSED_INFLATION.contains(r.code()),
                    e.getKey() + ": " + r.describe() + ", expected PROVENANCE_CEILING or TIER_NOT_ASSERTABLE");
        }
        expect(
                api.publishRaw(
                        alice,
                        o(
                                "type",
                                NOTE,
                                "actor",
                                "agent:worker",
                                "on_behalf_of",
                                "human:conform-alice",
                                "tier",
                                "src",
                                "origin",
                                "human",
                                "verification",
                                "human_verified")),
                201);
        expect(api.publishRaw(alice, o("type", NOTE, "tier", "src")), 201);
        expect(api.publishRaw(bot, o("type", NOTE, "origin", "probe", "verification", "machine_verified")), 201);
        return inflations.size()
                + " inflations refused; an agent vouched for by the owner, the human owner's src and a probe's "
                + "machine_verified accepted";
    }
}
