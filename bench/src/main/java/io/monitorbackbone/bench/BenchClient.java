package io.monitorbackbone.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;

/**
 * The protocol's calls the scenarios make, over one {@link HttpConn}. Setup calls ({@code create}, {@code subscribe})
 * must succeed or the run stops; measured calls return the raw response so the scenario counts a non-2xx as an error.
 */
final class BenchClient implements Closeable {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String BASE = "/mp/v0";

    record Monitor(String id, String owner) {}

    record Sub(String id, String token) {}

    final HttpConn http;

    BenchClient(URI base) {
        this.http = new HttpConn(base);
    }

    /** The type every bench observation has. */
    static final String TYPE = "com.example.bench";

    static byte[] observation(String subject) {
        return ("{\"type\":\"" + TYPE + "\",\"subject\":\"" + subject + "\",\"data\":{\"n\":1}}").getBytes(UTF_8);
    }

    Monitor create(String id, String capabilities) {
        JsonNode r = must(
                http.post(
                        BASE + "/monitors",
                        null,
                        ("{\"id\":\"" + id + "\",\"visibility\":\"public\",\"capabilities\":" + capabilities + "}")
                                .getBytes(UTF_8)),
                "create monitor " + id);
        return new Monitor(id, r.get("owner_token").asText());
    }

    Monitor create(String id) {
        return create(id, "[\"observe\"]");
    }

    /** A public monitor declaring the bench's one type, bridged from {@code topic} (JSON, from its beginning). */
    Monitor createBridged(String id, String topic) {
        String body = "{\"id\":\"" + id + "\",\"visibility\":\"public\",\"capabilities\":[\"observe\"],"
                + "\"types\":[\"" + TYPE + "\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:" + topic
                + "\",\"settings\":{\"format\":\"json\",\"start\":\"earliest\"}}}";
        JsonNode r = must(http.post(BASE + "/monitors", null, body.getBytes(UTF_8)), "create bridged monitor " + id);
        return new Monitor(id, r.get("owner_token").asText());
    }

    /** Pauses a monitor (its bridge stops where it is); {@link #resume} starts it again from there. */
    void pause(Monitor m) {
        must(http.post(BASE + "/monitors/" + m.id() + "/pause", m.owner(), "{}".getBytes(UTF_8)), "pause " + m.id());
    }

    void resume(Monitor m) {
        must(http.post(BASE + "/monitors/" + m.id() + "/resume", m.owner(), "{}".getBytes(UTF_8)), "resume " + m.id());
    }

    HttpConn.Response retire(Monitor m) {
        return http.post(BASE + "/monitors/" + m.id() + "/retire", m.owner(), "{}".getBytes(UTF_8));
    }

    HttpConn.Response publish(Monitor m, byte[] body) {
        return http.post(BASE + "/monitors/" + m.id() + "/observations", m.owner(), body);
    }

    /** A batch publish ({@code io.monitorbackbone/batch-publish}) of {@code {"observations": [...]}}. */
    HttpConn.Response publishBatch(Monitor m, byte[] body) {
        return http.post(BASE + "/monitors/" + m.id() + "/observations/batch", m.owner(), body);
    }

    /** A batch of {@code n} observations, the subjects {@code subject-0} to {@code subject-(subjects - 1)} in turn. */
    static byte[] batch(String subject, int n, int subjects) {
        StringBuilder b = new StringBuilder("{\"observations\":[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",")
                    .append("{\"type\":\"com.example.bench\",\"subject\":\"")
                    .append(subject)
                    .append('-')
                    .append(i % subjects)
                    .append("\",\"data\":{\"n\":1}}");
        }
        return b.append("]}").toString().getBytes(UTF_8);
    }

    long publishOk(Monitor m, byte[] body) {
        return must(publish(m, body), "publish to " + m.id()).get("seq").asLong();
    }

    Sub subscribe(Monitor m, String subscriber, String capabilities) {
        String body = "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"" + subscriber + "\""
                + (capabilities == null ? "" : ",\"capabilities\":" + capabilities) + "}";
        JsonNode r = must(
                http.post(BASE + "/subscriptions", capabilities == null ? null : m.owner(), body.getBytes(UTF_8)),
                "subscribe " + subscriber + " to " + m.id());
        return new Sub(r.at("/subscription/id").asText(), r.get("token").asText());
    }

    HttpConn.Response pull(Sub s, int limit, int waitSeconds) {
        return http.get(BASE + "/subscriptions/" + s.id() + "/pull?limit=" + limit + "&wait=" + waitSeconds, s.token());
    }

    /** A pull with the query as given, e.g. {@code limit=5000&large_pages=true&wait=0}. */
    HttpConn.Response pull(Sub s, String query) {
        return http.get(BASE + "/subscriptions/" + s.id() + "/pull?" + query, s.token());
    }

    HttpConn.Response ack(Sub s, long cursor) {
        return http.post(
                BASE + "/subscriptions/" + s.id() + "/ack", s.token(), ("{\"cursor\":" + cursor + "}").getBytes(UTF_8));
    }

    HttpConn.Response claim(Sub s, String subject) {
        return http.post(
                BASE + "/subscriptions/" + s.id() + "/leases/claim",
                s.token(),
                ("{\"subject\":\"" + subject + "\"}").getBytes(UTF_8));
    }

    HttpConn.Response state(Monitor m) {
        return http.get(BASE + "/monitors/" + m.id() + "/state", null);
    }

    static JsonNode json(HttpConn.Response r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new BenchError("not JSON (" + r.status() + "): " + abbreviated(r.text()));
        }
    }

    static JsonNode must(HttpConn.Response r, String what) {
        if (!r.ok()) {
            throw new BenchError(what + " answered " + r.status() + ": " + abbreviated(r.text()));
        }
        return json(r);
    }

    static String abbreviated(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    @Override
    public void close() {
        http.close();
    }
}
