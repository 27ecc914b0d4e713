package io.monitorbackbone.conform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A small stateful stand-in for a protocol server, just enough for C08, C17 and C17+ and for retiring what a run
 * created: monitors, publishes, subscriptions with a stored {@code types} filter, pulls with inline {@code types} and
 * {@code subjects}, compaction, seek, retire. Two switches choose how it differs from a server we would call conformant.
 */
final class ProtocolFake implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TIME = "2026-01-01T00:00:00Z";

    /** {@code refusesWideningInline}: 400 INVALID_FILTER for an inline value outside the stored filter (else 200 with nothing). */
    record Behaviour(boolean refusesWideningInline, boolean expiresCommittedCursor) {}

    private record Obs(long seq, String type, String subject) {}

    private static final class Mon {
        final String id;
        final String ownerToken;
        final List<Obs> log = new ArrayList<>();
        long floor = 1;
        boolean retired;

        Mon(String id, String ownerToken) {
            this.id = id;
            this.ownerToken = ownerToken;
        }
    }

    private static final class Sub {
        final String id;
        final Mon monitor;
        final String token;
        final List<String> types;
        long cursor;
        boolean retired;

        Sub(String id, Mon monitor, String token, List<String> types, long cursor) {
            this.id = id;
            this.monitor = monitor;
            this.token = token;
            this.types = types;
            this.cursor = cursor;
        }
    }

    private final Behaviour behaviour;
    private final Map<String, Mon> monitors = new LinkedHashMap<>();
    private final Map<String, Sub> subscriptions = new LinkedHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    private final FakeServer server;

    ProtocolFake(Behaviour behaviour) {
        this.behaviour = behaviour;
        this.server = new FakeServer(this::answer);
    }

    URI base() {
        return server.base();
    }

    synchronized long monitorsCreated() {
        return monitors.size();
    }

    synchronized long subscriptionsCreated() {
        return subscriptions.size();
    }

    synchronized long activeMonitors() {
        return monitors.values().stream().filter(m -> !m.retired).count();
    }

    synchronized long activeSubscriptions() {
        return subscriptions.values().stream().filter(s -> !s.retired).count();
    }

    @Override
    public void close() {
        server.close();
    }

    private synchronized FakeServer.Answer answer(HttpExchange exchange) {
        try {
            return route(exchange);
        } catch (Exception e) {
            return error(500, "UNAVAILABLE", e.toString());
        }
    }

    private FakeServer.Answer route(HttpExchange exchange) throws Exception {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getRawPath().substring("/mp/v0".length());
        Map<String, List<String>> query = query(exchange.getRequestURI().getRawQuery());
        String bearer = bearer(exchange);
        JsonNode body = exchange.getAttribute("body") instanceof String s && !s.isEmpty()
                ? JSON.readTree(s)
                : JSON.createObjectNode();
        String[] parts = path.split("/");
        if (method.equals("POST") && path.equals("/monitors")) {
            String id = body.path("id").asText();
            Mon m = new Mon(id, "owner-" + id);
            monitors.put(id, m);
            ObjectNode r = JSON.createObjectNode();
            r.set("monitor", monitor(m));
            r.put("owner_token", m.ownerToken);
            return ok(201, r);
        }
        if (method.equals("POST")
                && parts.length == 4
                && parts[1].equals("monitors")
                && parts[3].equals("observations")) {
            Mon m = monitors.get(parts[2]);
            if (m == null || !m.ownerToken.equals(bearer)) {
                return error(401, "UNAUTHORIZED", "owner token required");
            }
            Obs o = new Obs(
                    seq.incrementAndGet(),
                    body.path("type").asText(),
                    body.path("subject").asText(null));
            m.log.add(o);
            ObjectNode r = JSON.createObjectNode();
            r.set("observation", observation(m, o));
            r.put("seq", o.seq());
            return ok(201, r);
        }
        if (method.equals("POST") && parts.length == 4 && parts[1].equals("monitors") && parts[3].equals("retire")) {
            Mon m = monitors.get(parts[2]);
            if (m == null || !m.ownerToken.equals(bearer)) {
                return error(401, "UNAUTHORIZED", "owner token required");
            }
            m.retired = true;
            ObjectNode r = JSON.createObjectNode();
            r.set("monitor", monitor(m));
            r.put("seq", seq.incrementAndGet());
            return ok(200, r);
        }
        if (method.equals("POST") && path.equals("/subscriptions")) {
            Mon m = monitors.get(body.path("monitor").asText());
            if (m == null) {
                return error(404, "NOT_FOUND", "monitor not found");
            }
            List<String> types = new ArrayList<>();
            body.at("/filter/types").forEach(t -> types.add(t.asText()));
            String id = "sub-" + (subscriptions.size() + 1);
            Sub s = new Sub(
                    id,
                    m,
                    "token-" + id,
                    types.isEmpty() ? null : types,
                    body.path("from").asLong(1));
            subscriptions.put(id, s);
            ObjectNode r = JSON.createObjectNode();
            ObjectNode sub = r.putObject("subscription");
            sub.put("id", id)
                    .put("monitor", m.id)
                    .put("subscriber", body.path("subscriber").asText("agent:x"))
                    .put("cursor", s.cursor)
                    .put("protocol", "pull")
                    .put("active", true)
                    .put("created", TIME);
            sub.putArray("capabilities").add("observe");
            r.put("token", s.token);
            return ok(201, r);
        }
        if (method.equals("POST") && path.equals("/admin/compact")) {
            Mon m = monitors.get(body.path("monitor").asText());
            m.floor = body.path("upto_seq").asLong() + 1;
            return ok(200, JSON.createObjectNode().put("ok", true));
        }
        if (parts.length >= 4 && parts[1].equals("subscriptions")) {
            Sub s = subscriptions.get(parts[2]);
            if (s == null || s.retired) {
                return error(404, "NOT_FOUND", "subscription not found");
            }
            if (!s.token.equals(bearer)) {
                return error(401, "UNAUTHORIZED", "bearer token missing or invalid");
            }
            switch (method + " " + parts[3]) {
                case "GET pull":
                    return pull(s, query);
                case "POST seek": {
                    long c = body.path("cursor").asLong();
                    if (c < s.monitor.floor) {
                        return expired(s.monitor, c);
                    }
                    s.cursor = c;
                    return ok(
                            200,
                            JSON.createObjectNode().put("subscription", s.id).put("cursor", c));
                }
                case "POST retire":
                    s.retired = true;
                    return ok(200, JSON.createObjectNode().put("ok", true).put("subscription", s.id));
                default:
                    break;
            }
        }
        return error(404, "NOT_FOUND", "unknown route");
    }

    private FakeServer.Answer pull(Sub s, Map<String, List<String>> query) {
        Mon m = s.monitor;
        long start = s.cursor;
        if (query.containsKey("cursor")) {
            start = Long.parseLong(query.get("cursor").get(0));
            if (start < m.floor) {
                return expired(m, start);
            }
        } else if (start < m.floor) {
            if (behaviour.expiresCommittedCursor()) {
                return expired(m, start);
            }
            start = m.floor;
        }
        List<String> inlineTypes = query.get("types");
        if (inlineTypes != null && s.types != null && behaviour.refusesWideningInline()) {
            for (String t : inlineTypes) {
                if (s.types.stream().noneMatch(stored -> matches(stored, t))) {
                    ObjectNode e = errorBody("INVALID_FILTER", "inline filter would widen key 'types'");
                    e.put("key", "types");
                    e.putObject("stored").set("types", JSON.valueToTree(s.types));
                    return new FakeServer.Answer(400, e.toString());
                }
            }
        }
        long from = start;
        Predicate<Obs> passes = o -> o.seq() >= from
                && o.seq() >= m.floor
                && (s.types == null || s.types.stream().anyMatch(t -> matches(t, o.type())))
                && (inlineTypes == null || inlineTypes.stream().anyMatch(t -> matches(t, o.type())))
                && (!query.containsKey("subjects") || query.get("subjects").contains(o.subject()));
        int limit =
                query.containsKey("limit") ? Integer.parseInt(query.get("limit").get(0)) : 50;
        List<Obs> page = m.log.stream().filter(passes).limit(limit).toList();
        long head = m.log.isEmpty() ? 0 : m.log.get(m.log.size() - 1).seq();
        ObjectNode r = JSON.createObjectNode();
        r.put("subscription", s.id)
                .put("monitor", m.id)
                .put("cursor", s.cursor)
                .put("head", head)
                .put("lag", page.size())
                .put("retention_floor", m.floor)
                .put(
                        "next",
                        page.isEmpty() ? head + 1 : page.get(page.size() - 1).seq() + 1);
        ArrayNode observations = r.putArray("observations");
        page.forEach(o -> observations.add(observation(m, o)));
        return ok(200, r);
    }

    private static boolean matches(String filter, String type) {
        return filter.endsWith("*") ? type.startsWith(filter.substring(0, filter.length() - 1)) : filter.equals(type);
    }

    private static FakeServer.Answer expired(Mon m, long requested) {
        ObjectNode e = errorBody("CURSOR_EXPIRED", "cursor below retention floor");
        e.put("retention_floor", m.floor).put("requested", requested);
        return new FakeServer.Answer(410, e.toString());
    }

    private static ObjectNode monitor(Mon m) {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", m.id).put("name", m.id).put("owner", "human:conform");
        o.putObject("source").put("kind", "log");
        o.putObject("filter");
        o.put("horizon", "event");
        o.putArray("capabilities").add("observe");
        o.put("visibility", "public").put("attested", false);
        o.putArray("default_grant").add("observe");
        o.put("version", 1)
                .put("created", TIME)
                .put("updated", TIME)
                .put("active", !m.retired)
                .put("head", m.log.isEmpty() ? 0 : m.log.get(m.log.size() - 1).seq());
        return o;
    }

    private static ObjectNode observation(Mon m, Obs o) {
        ObjectNode e = JSON.createObjectNode();
        e.put("specversion", "1.0")
                .put("id", String.valueOf(o.seq()))
                .put("source", "monitor:" + m.id)
                .put("type", o.type())
                .put("subject", o.subject())
                .put("time", TIME)
                .put("datacontenttype", "application/json")
                .put("sequence", String.format("%020d", o.seq()))
                .put("tier", "measured")
                .put("origin", "agent")
                .put("verified", "unverified")
                .put("horizon", "event")
                .put("actor", "agent:conform");
        e.putObject("data")
                .putObject("provenance")
                .put("origin", "agent")
                .put("tier", "measured")
                .put("verification", "unverified")
                .put("actor", "agent:conform")
                .put("wasAttributedTo", "agent:conform");
        return e;
    }

    private static ObjectNode errorBody(String code, String message) {
        ObjectNode e = JSON.createObjectNode();
        e.put("code", code).put("error", message);
        e.putArray("done");
        return e;
    }

    private static FakeServer.Answer error(int status, String code, String message) {
        return new FakeServer.Answer(status, errorBody(code, message).toString());
    }

    private static FakeServer.Answer ok(int status, JsonNode body) {
        return new FakeServer.Answer(status, body.toString());
    }

    private static String bearer(HttpExchange exchange) {
        String h = exchange.getRequestHeaders().getFirst("Authorization");
        return h != null && h.startsWith("Bearer ") ? h.substring(7) : null;
    }

    private static Map<String, List<String>> query(String raw) {
        Map<String, List<String>> q = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            q.computeIfAbsent(k, x -> new ArrayList<>()).addAll(List.of(v.split(",")));
        }
        return q;
    }
}
