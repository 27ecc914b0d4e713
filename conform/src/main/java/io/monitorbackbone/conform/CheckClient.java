package io.monitorbackbone.conform;

import static io.monitorbackbone.conform.J.o;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A check's hands: the protocol's moves over the public REST API, each expected outcome asserted with a reason that
 * names the request. Every id it creates starts with this run's and this check's prefix, so checks never share state and
 * a second run against the same server starts afresh.
 */
final class CheckClient {
    static final String BASE_TYPE = "org.conform";

    final Wire wire;
    private final Options options;
    private final String prefix;
    private int counter;

    record Monitor(String id, String ownerToken, String subscribeToken, JsonNode served) {
        String source() {
            return "monitor:" + id;
        }
    }

    record Reader(String id, String token, JsonNode served) {}

    CheckClient(Wire wire, Options options, String runId, String checkId) {
        this.wire = wire;
        this.options = options;
        // "C17+" → "c17s": a monitor id is letters, digits, '.', '_' and '-' only.
        this.prefix = "cf-" + runId + "-" + checkId.toLowerCase(Locale.ROOT).replace("+", "s");
    }

    Options options() {
        return options;
    }

    /** A fresh name for this check: monitor ids, subjects, subscribers. */
    String uid(String hint) {
        return prefix + "-" + hint + "-" + (++counter);
    }

    // ---- expectations ----

    static CheckFailed fail(String reason) {
        return new CheckFailed(reason);
    }

    static void that(boolean condition, String reason) {
        if (!condition) {
            throw fail(reason);
        }
    }

    static Wire.Reply expect(Wire.Reply r, int status) {
        that(r.status() == status, r.describe() + ", expected " + status);
        return r;
    }

    /** The request was refused with this status and error code (the body's schema was checked on arrival). */
    static Wire.Reply refused(Wire.Reply r, int status, String code) {
        that(r.status() == status && code.equals(r.code()), r.describe() + ", expected " + status + " " + code);
        return r;
    }

    /** Polls until {@code probe} answers non-null, failing with {@code what} when the deadline passes first. */
    static <T> T await(String what, Duration max, Supplier<T> probe) {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            if (System.nanoTime() > deadline) {
                throw fail(what + " did not happen within " + max.toSeconds() + " s");
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw fail("interrupted while waiting: " + what);
            }
        }
    }

    // ---- monitors ----

    JsonNode discover() {
        return expect(wire.get("/discover", null), 200).json();
    }

    /**
     * Creates a monitor with a fresh id; {@code fields} may set anything else. Owner and visibility are always sent
     * explicitly (defaults differ between servers): {@code human:conform} and {@code public} unless given.
     */
    Monitor monitor(ObjectNode fields) {
        ObjectNode body = fields.deepCopy();
        if (!body.has("id")) {
            body.put("id", uid("m"));
        }
        if (!body.has("owner")) {
            body.put("owner", "human:conform");
        }
        if (!body.has("visibility")) {
            body.put("visibility", "public");
        }
        Wire.Reply r = createMonitor(body);
        if (r.status() == 401 && options.registrationToken() == null) {
            throw fail(r.describe()
                    + ": this server requires a registration token to create monitors; pass --registration-token");
        }
        expect(r, 201);
        return new Monitor(
                body.get("id").asText(),
                r.json().path("owner_token").asText(null),
                r.json().path("subscribe_token").asText(null),
                r.json().get("monitor"));
    }

    /** POST /monitors as the runner would: with the registration token as Bearer when one was given. */
    Wire.Reply createMonitor(ObjectNode body) {
        return wire.post("/monitors", body, options.registrationToken());
    }

    Wire.Reply publishRaw(Monitor m, ObjectNode body, String bearer) {
        return wire.post("/monitors/" + m.id() + "/observations", body, bearer);
    }

    Wire.Reply publishRaw(Monitor m, ObjectNode body) {
        return publishRaw(m, body, m.ownerToken());
    }

    /** Publishes as the owner, expects 201, returns the served observation. */
    JsonNode publish(Monitor m, ObjectNode body) {
        return expect(publishRaw(m, body), 201).json().get("observation");
    }

    /** Publishes a plain {@code org.conform.note} observation as the owner; returns its seq. */
    long note(Monitor m, String subject) {
        return seq(publish(m, o("type", BASE_TYPE + ".note", "subject", subject)));
    }

    static long seq(JsonNode observation) {
        try {
            return Long.parseLong(observation.get("id").asText());
        } catch (RuntimeException e) {
            throw fail("observation id is not a decimal seq: " + observation.get("id"));
        }
    }

    Wire.Reply configure(Monitor m, String action, ObjectNode body) {
        return wire.post("/monitors/" + m.id() + "/" + action, body, m.ownerToken());
    }

    JsonNode state(Monitor m) {
        return expect(wire.get("/monitors/" + m.id() + "/state", m.ownerToken()), 200)
                .json();
    }

    // ---- subscriptions ----

    Wire.Reply subscribeRaw(Monitor m, ObjectNode body, String bearer) {
        ObjectNode full = o("monitor", m.id());
        full.setAll(body);
        return wire.post("/subscriptions", full, bearer);
    }

    Reader subscribe(Monitor m, ObjectNode body, String bearer) {
        return reader(expect(subscribeRaw(m, body, bearer), 201));
    }

    static Reader reader(Wire.Reply subscribed) {
        JsonNode s = subscribed.json().get("subscription");
        return new Reader(s.get("id").asText(), subscribed.json().path("token").asText(null), s);
    }

    Wire.Reply pullRaw(Reader r, String query) {
        return wire.get("/subscriptions/" + r.id() + "/pull" + query, r.token());
    }

    JsonNode pull(Reader r, String query) {
        return expect(pullRaw(r, query), 200).json();
    }

    Wire.Reply ackRaw(Reader r, JsonNode cursor) {
        return wire.post("/subscriptions/" + r.id() + "/ack", o("cursor", cursor), r.token());
    }

    JsonNode ack(Reader r, long cursor) {
        return expect(ackRaw(r, J.node(cursor)), 200).json();
    }

    Wire.Reply lease(Reader r, String action, ObjectNode body) {
        return wire.post("/subscriptions/" + r.id() + "/leases/" + action, body, r.token());
    }

    static List<JsonNode> observations(JsonNode pulled) {
        List<JsonNode> out = new ArrayList<>();
        pulled.path("observations").forEach(out::add);
        return out;
    }

    static List<String> ids(JsonNode pulled) {
        return observations(pulled).stream().map(o -> o.path("id").asText()).toList();
    }

    /**
     * The monitor's whole retained log (or the part that {@code filterQuery}, e.g. {@code &types=...}, selects), read by
     * a fresh witness subscription with the owner's token. The witness starts at its initial cursor, or at the
     * retention floor when that cursor has expired.
     */
    List<JsonNode> log(Monitor m, String filterQuery) {
        Reader witness = subscribe(m, o("subscriber", "agent:conform-" + uid("witness")), m.ownerToken());
        return readAll(witness, filterQuery);
    }

    List<JsonNode> log(Monitor m) {
        return log(m, "");
    }

    /** Every observation from the reader's cursor on, by replay pulls, which move nothing. */
    List<JsonNode> readAll(Reader r, String filterQuery) {
        Wire.Reply first = pullRaw(r, "?limit=200" + filterQuery);
        long cursor;
        List<JsonNode> out = new ArrayList<>();
        if (first.status() == 410
                && first.json() != null
                && first.json().path("retention_floor").canConvertToLong()) {
            cursor = first.json().get("retention_floor").asLong();
        } else {
            JsonNode page = expect(first, 200).json();
            out.addAll(observations(page));
            if (observations(page).isEmpty()) {
                return out;
            }
            cursor = page.path("next").asLong();
        }
        for (int pages = 0; pages < 100; pages++) {
            JsonNode page = pull(r, "?limit=200&cursor=" + cursor + filterQuery);
            List<JsonNode> batch = observations(page);
            if (batch.isEmpty()) {
                return out;
            }
            out.addAll(batch);
            long next = page.path("next").asLong();
            that(next > cursor, "pull ?cursor=" + cursor + " answered next=" + next + ", which does not move forward");
            cursor = next;
        }
        throw fail("the log of a test monitor did not end within 100 pages");
    }
}
