package io.monitorbackbone.conform;

import static io.monitorbackbone.conform.CheckClient.expect;
import static io.monitorbackbone.conform.CheckClient.fail;
import static io.monitorbackbone.conform.CheckClient.refused;
import static io.monitorbackbone.conform.CheckClient.that;
import static io.monitorbackbone.conform.J.a;
import static io.monitorbackbone.conform.J.o;
import static io.monitorbackbone.conform.WriteChecks.NOTE;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Who may see and do what: discover, visibility, tokens, grants, the browser guard, and the schemas of all of it. */
final class AccessChecks {
    private static final String FOREIGN_ORIGIN = "https://evil.example";

    private AccessChecks() {}

    static List<Check> all() {
        return List.of(
                new Check("C01", "discover shape", AccessChecks::c01),
                new Check("C18", "private monitor listed only for its owner", AccessChecks::c18),
                new Check("C23", "wrong and missing bearer both 401", AccessChecks::c23),
                new Check("C28", "a stranger cannot be granted act", AccessChecks::c28),
                new Check("C29", "every served object validates against schemas/", AccessChecks::c29),
                new Check("C30", "foreign Origin refused", AccessChecks::c30),
                new Check(
                        "C32",
                        "re-subscribe under someone else's name → 401 and the holder keeps working",
                        AccessChecks::c32));
    }

    static String c01(CheckClient api) {
        Wire.Reply r = expect(api.wire.get("/discover", null), 200);
        JsonNode d = r.json();
        that(d != null && d.isObject(), "discover did not answer a JSON object: " + Wire.cut(r.body(), 80));
        that(
                r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                "discover answered Content-Type "
                        + r.headers().firstValue("Content-Type").orElse("(none)"));
        List<String> versions = new ArrayList<>();
        d.path("supportedVersions").forEach(v -> versions.add(v.asText()));
        that(versions.contains("0.1"), "supportedVersions is " + d.path("supportedVersions") + ", without \"0.1\"");
        that("monitor-protocol".equals(d.path("protocol").asText()), "protocol is " + d.path("protocol"));
        for (String part : List.of("monitors", "feeds", "leases")) {
            that(d.at("/capabilities/" + part).isObject(), "capabilities." + part + " is missing");
        }
        that(
                d.at("/capabilities/feeds/pull").asBoolean(false),
                "capabilities.feeds.pull is not true: a server must serve pull");
        for (String limit : List.of("max_limit", "default_limit", "max_wait_seconds")) {
            that(
                    d.at("/limits/" + limit).isIntegralNumber()
                            && d.at("/limits/" + limit).asLong() > 0,
                    "limits." + limit + " is " + d.at("/limits/" + limit) + ", not a positive integer");
        }
        that(
                d.at("/limits/default_limit").asLong()
                        <= d.at("/limits/max_limit").asLong(),
                "limits.default_limit exceeds max_limit");
        that(
                d.at("/serverInfo/name").isTextual()
                        && d.at("/serverInfo/version").isTextual(),
                "serverInfo lacks name or version");
        return "protocol " + d.path("protocol").asText() + " " + versions + " from "
                + d.at("/serverInfo/name").asText() + ", with capabilities and limits";
    }

    private static Set<String> listed(CheckClient api, String bearer) {
        JsonNode list = expect(api.wire.get("/monitors", bearer), 200).json().path("monitors");
        that(list.isArray(), "GET /monitors did not answer a monitors array");
        Set<String> ids = new TreeSet<>();
        list.forEach(m -> ids.add(m.path("id").asText()));
        return ids;
    }

    static String c18(CheckClient api) {
        CheckClient.Monitor hidden = api.monitor(o("visibility", "private"));
        CheckClient.Monitor stranger = api.monitor(o("visibility", "private"));
        CheckClient.Monitor open = api.monitor(o("visibility", "public"));

        Set<String> anonymous = listed(api, null);
        Set<String> otherOwner = listed(api, stranger.ownerToken());
        Set<String> owner = listed(api, hidden.ownerToken());

        that(
                anonymous.contains(open.id()),
                "GET /monitors without a token does not list the public monitor " + open.id());
        that(
                !anonymous.contains(hidden.id()),
                "GET /monitors without a token lists the private monitor " + hidden.id());
        that(
                !otherOwner.contains(hidden.id()),
                "another monitor's owner token lists the private monitor " + hidden.id());
        that(
                otherOwner.contains(stranger.id()),
                "an owner's token does not list its own private monitor " + stranger.id());
        that(owner.contains(hidden.id()), "the owner's token does not list its private monitor " + hidden.id());
        refused(api.wire.get("/monitors/" + hidden.id(), null), 404, "NOT_FOUND");
        refused(api.wire.get("/monitors/" + hidden.id(), stranger.ownerToken()), 404, "NOT_FOUND");
        refused(api.wire.get("/monitors/" + hidden.id() + "/state", null), 404, "NOT_FOUND");
        refused(api.subscribeRaw(hidden, o("subscriber", "agent:nosy"), null), 404, "NOT_FOUND");
        expect(api.wire.get("/monitors/" + hidden.id(), hidden.ownerToken()), 200);
        expect(api.wire.get("/monitors/" + hidden.id() + "/state", hidden.ownerToken()), 200);
        return "the private monitor is listed, readable and subscribable only with its owner's token; the public one for anyone";
    }

    static String c23(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o());
        CheckClient.Monitor other = api.monitor(o());
        CheckClient.Reader r = api.subscribe(m, o("subscriber", "agent:t"), null);
        String sub = "/subscriptions/" + r.id();
        String wrong = other.ownerToken();

        int refusals = 0;
        for (String bearer : new String[] {null, wrong, "not-a-token"}) {
            List<Wire.Reply> replies = List.of(
                    api.wire.get(sub + "/pull", bearer),
                    api.wire.post(sub + "/ack", o("cursor", 1), bearer),
                    api.wire.post(sub + "/seek", o("cursor", 1, "reason", "x"), bearer),
                    api.wire.post(sub + "/renew", o(), bearer),
                    api.wire.post(sub + "/retire", o("reason", "x"), bearer),
                    api.wire.post(sub + "/leases/claim", o("subject", "x"), bearer),
                    api.publishRaw(m, o("type", NOTE), bearer),
                    api.wire.post("/monitors/" + m.id() + "/update", o("patch", o("name", "taken")), bearer),
                    api.wire.post("/monitors/" + m.id() + "/pause", o(), bearer));
            for (Wire.Reply reply : replies) {
                refused(reply, 401, "UNAUTHORIZED");
                refusals++;
            }
        }
        expect(api.pullRaw(r, ""), 200);
        expect(api.publishRaw(m, o("type", NOTE)), 201);
        JsonNode monitor =
                expect(api.wire.get("/monitors/" + m.id(), null), 200).json();
        that(
                monitor.path("active").asBoolean(false)
                        && !"taken".equals(monitor.path("name").asText()),
                "a refused request changed the monitor: " + Wire.cut(monitor.toString(), 120));
        return refusals
                + " requests without, with a wrong and with a foreign token answered 401; the right tokens still work";
    }

    static String c28(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o("capabilities", a("observe", "react", "act")));
        String job = api.uid("job");
        api.note(m, job);
        CheckClient.Monitor other = api.monitor(o());

        List<String> outcomes = new ArrayList<>();
        for (String bearer : new String[] {null, other.ownerToken()}) {
            Wire.Reply r = api.subscribeRaw(
                    m, o("subscriber", "agent:" + api.uid("greedy"), "capabilities", a("observe", "act")), bearer);
            if (r.status() == 403) {
                refused(r, 403, "CAPABILITY_MISSING");
                outcomes.add("CAPABILITY_MISSING");
                continue;
            }
            CheckClient.Reader greedy = CheckClient.reader(expect(r, 201));
            that(
                    !greedy.served().path("capabilities").toString().contains("\"act\""),
                    r.describe() + " granted a stranger " + greedy.served().path("capabilities"));
            refused(api.lease(greedy, "claim", o("subject", job)), 403, "CAPABILITY_MISSING");
            outcomes.add("granted " + greedy.served().path("capabilities"));
        }
        CheckClient.Reader trusted =
                api.subscribe(m, o("subscriber", "agent:trusted", "capabilities", a("observe", "act")), m.ownerToken());
        that(
                trusted.served().path("capabilities").toString().contains("\"act\""),
                "the owner's token was not granted act: " + trusted.served().path("capabilities"));
        expect(api.lease(trusted, "claim", o("subject", job)), 201);
        return "strangers asking for act: " + outcomes + "; the owner's token is granted act and claims";
    }

    static String c29(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o(
                "capabilities",
                a("observe", "act"),
                "types",
                a(NOTE),
                "filter",
                o("types", a(CheckClient.BASE_TYPE + ".*"))));
        String job = api.uid("job");
        api.note(m, job);
        api.publish(
                m,
                o(
                        "type",
                        NOTE,
                        "subject",
                        "full",
                        "actor",
                        "probe:p",
                        "origin",
                        "probe",
                        "tags",
                        o("k", "v"),
                        "data",
                        o("x", 1),
                        "source_ref",
                        "ref-1"));
        expect(api.wire.get("/monitors", null), 200);
        expect(api.wire.get("/monitors/" + m.id(), null), 200);
        expect(api.configure(m, "update", o("patch", o("name", "renamed"), "reason", "schema tour")), 200);
        api.state(m);
        CheckClient.Reader r = api.subscribe(
                m,
                o(
                        "subscriber",
                        "agent:tour",
                        "capabilities",
                        a("observe", "act"),
                        "filter",
                        o("types", a(NOTE), "#k", a("v"))),
                m.ownerToken());
        api.pull(r, "?limit=200");
        Wire.Reply renewed = expect(api.wire.post("/subscriptions/" + r.id() + "/renew", o(), r.token()), 200);
        CheckClient.Reader current =
                new CheckClient.Reader(r.id(), renewed.json().path("token").asText(), r.served());
        expect(api.lease(current, "claim", o("subject", job, "lease_duration_seconds", 60)), 201);
        expect(api.lease(current, "renew", o("subject", job, "lease_duration_seconds", 60)), 200);
        api.log(m);
        refused(api.publishRaw(m, o("type", NOTE, "tier", "nonsense")), 400, "UNKNOWN_VOCABULARY");
        refused(api.wire.get("/subscriptions/" + r.id() + "/pull", "wrong"), 401, "UNAUTHORIZED");

        Map<String, Integer> seen = api.wire.validated();
        Set<String> kinds = Set.of("monitor", "observation", "state", "subscription", "lease", "error");
        that(seen.keySet().containsAll(kinds), "the tour validated " + seen + ", not every kind of " + kinds);
        int total = seen.values().stream().mapToInt(Integer::intValue).sum();
        return total + " served objects valid: " + seen;
    }

    static String c30(CheckClient api) {
        Wire.Reply foreign = api.wire.send("GET", "/discover", null, null, Map.of("Origin", FOREIGN_ORIGIN));
        String id = api.uid("m");
        Wire.Reply write = api.wire.send(
                "POST",
                "/monitors",
                o("id", id, "owner", "human:conform", "visibility", "public").toString(),
                api.options().registrationToken(),
                Map.of("Origin", FOREIGN_ORIGIN));
        Wire.Reply plain = api.wire.get("/discover", null);

        refused(foreign, 403, "ORIGIN_REFUSED");
        refused(write, 403, "ORIGIN_REFUSED");
        refused(api.wire.get("/monitors/" + id, null), 404, "NOT_FOUND");
        expect(plain, 200);
        if (!"http".equals(api.wire.base().getScheme())
                || !loopback(api.wire.base().getHost())) {
            return "a foreign Origin is refused, also for writes, which do not happen; requests without Origin are served"
                    + " (Host rebinding not checked: the server is not reached on a loopback http address)";
        }
        Wire.Reply rebound = api.wire.rawGet("/discover", "evil.example");
        Wire.Reply local = api.wire.rawGet(
                "/discover",
                "localhost"
                        + (api.wire.base().getPort() > 0 ? ":" + api.wire.base().getPort() : ""));
        refused(rebound, 403, "ORIGIN_REFUSED");
        expect(local, 200);
        return "a foreign Origin and a rebinding Host are refused (a refused write does not happen); plain requests are served";
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw fail("cannot resolve the server's host " + host);
        }
    }

    static String c32(CheckClient api) {
        CheckClient.Monitor m = api.monitor(o());
        CheckClient.Monitor other = api.monitor(o());
        long first = api.note(m, "a");
        api.note(m, "b");
        CheckClient.Reader holder = api.subscribe(m, o("subscriber", "agent:holder", "from", first), null);
        CheckClient.Reader bystander = api.subscribe(m, o("subscriber", "agent:bystander"), null);
        long cursor = first + 1;
        api.ack(holder, cursor);

        Wire.Reply anonymous = api.subscribeRaw(m, o("subscriber", "agent:holder"), null);
        Wire.Reply withOthers = api.subscribeRaw(m, o("subscriber", "agent:holder"), bystander.token());
        Wire.Reply foreignOwner = api.subscribeRaw(m, o("subscriber", "agent:holder"), other.ownerToken());
        JsonNode stillMine = api.pull(holder, "?limit=1");

        refused(anonymous, 401, "UNAUTHORIZED");
        refused(withOthers, 401, "UNAUTHORIZED");
        refused(foreignOwner, 401, "UNAUTHORIZED");
        that(
                stillMine.path("cursor").asLong() == cursor,
                "after the refused takeovers the holder's cursor is " + stillMine.path("cursor") + ", not " + cursor);
        CheckClient.Reader rekeyed = api.subscribe(m, o("subscriber", "agent:holder"), holder.token());
        that(
                rekeyed.id().equals(holder.id()),
                "re-subscribing with the holder's token answered " + rekeyed.id() + ", not " + holder.id());
        that(!holder.token().equals(rekeyed.token()), "re-keying did not mint a new token");
        that(api.pull(rekeyed, "?limit=1").path("cursor").asLong() == cursor, "re-keying lost the cursor " + cursor);
        refused(api.pullRaw(holder, ""), 401, "UNAUTHORIZED");
        return "three takeovers under agent:holder answered 401 and the holder kept cursor " + cursor
                + "; its own token re-keys it (same id, new token)";
    }
}
