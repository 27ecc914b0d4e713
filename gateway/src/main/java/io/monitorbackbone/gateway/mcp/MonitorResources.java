package io.monitorbackbone.gateway.mcp;

import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.gateway.service.Services;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MCP resources {@code monitor://{id}/definition} and {@code monitor://{id}/state}: the same JSON as
 * {@code GET /mp/v0/monitors/{id}} and {@code GET /mp/v0/monitors/{id}/state}, with the same visibility rules. A token
 * rides in the URI ({@code ?token=...}) or, failing that, in the Authorization header of the MCP request.
 */
public final class MonitorResources {
    public static final String SCHEME = "monitor://";
    public static final String MIME_TYPE = "application/json";
    private static final Pattern URI = Pattern.compile("^monitor://([\\w.-]{2,64})/(definition|state)(?:\\?(.*))?$");

    /** A parsed resource URI: which monitor, which view, and the token it carries (null when none). */
    public record Ref(String uri, String monitorId, String view, String token) {
        public String bearer(String headerBearer) {
            return token != null ? token : headerBearer;
        }
    }

    private MonitorResources() {
    }

    public static boolean isMonitorUri(String uri) {
        return uri != null && uri.startsWith(SCHEME);
    }

    public static Ref parse(String uri) {
        Matcher m = uri == null ? null : URI.matcher(uri);
        if (m == null || !m.matches()) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "no such resource; monitor resources are "
                    + "monitor://{id}/definition and monitor://{id}/state, optionally with ?token=<token>").with("uri", uri);
        }
        String token = null;
        if (m.group(3) != null) {
            for (String pair : m.group(3).split("&")) {
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                if (name.equals("token") && eq >= 0) {
                    token = URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } else if (!name.isEmpty()) {
                    throw ProtocolException.of(ErrorCode.NOT_FOUND, "a monitor resource takes only the query parameter token")
                            .with("uri", uri);
                }
            }
        }
        return new Ref(uri, m.group(1), m.group(2), token == null || token.isEmpty() ? null : token);
    }

    /** The resource's JSON; a monitor the bearer may not see is NOT_FOUND, exactly as over REST. Blocks on Kafka. */
    public static JsonNode read(Services services, Ref ref, String headerBearer) {
        String bearer = ref.bearer(headerBearer);
        Reply reply = ref.view().equals("state")
                ? services.monitors().state(ref.monitorId(), bearer)
                : services.monitors().get(ref.monitorId(), bearer);
        return reply.body();
    }

    /** {@code resources/read}'s result. */
    public static ObjectNode readResult(Ref ref, JsonNode body) {
        ObjectNode result = Json.object();
        ObjectNode contents = result.putArray("contents").addObject();
        contents.put("uri", ref.uri());
        contents.put("mimeType", MIME_TYPE);
        contents.put("text", new String(Json.bytes(body), StandardCharsets.UTF_8));
        return result;
    }

    /** {@code resources/list}'s result: both resources of every monitor the bearer may see (public ones without). */
    public static ObjectNode listResult(Services services, String headerBearer) {
        ObjectNode result = Json.object();
        ArrayNode resources = result.putArray("resources");
        for (JsonNode monitor : services.monitors().list(headerBearer).body().path("monitors")) {
            String id = monitor.path("id").asText();
            String name = monitor.path("name").asText(id);
            resources.add(resource(SCHEME + id + "/definition", id + " definition", name + ": definition",
                    "The monitor's definition: owner, types, visibility, capabilities, limits and head."));
            resources.add(resource(SCHEME + id + "/state", id + " state", name + ": state",
                    "The monitor's computed state: live, head, counters, ages, confidence and its missing inputs. "
                            + "Subscribe to be told when it changes."));
        }
        return result;
    }

    private static ObjectNode resource(String uri, String name, String title, String description) {
        ObjectNode r = Json.object();
        r.put("uri", uri);
        r.put("name", name);
        r.put("title", title);
        r.put("description", description);
        r.put("mimeType", MIME_TYPE);
        return r;
    }
}
