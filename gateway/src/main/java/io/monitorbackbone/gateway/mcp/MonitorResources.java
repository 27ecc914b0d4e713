package io.monitorbackbone.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.gateway.service.MonitorService;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.mcp.MonitorUri;
import java.nio.charset.StandardCharsets;

/**
 * The MCP resources {@code monitor://{id}/definition} and {@code monitor://{id}/state}: the same JSON as
 * {@code GET /mp/v0/monitors/{id}} and {@code GET /mp/v0/monitors/{id}/state}, with the same visibility rules. A token
 * rides in the URI ({@code ?token=...}) or, failing that, in the Authorization header of the MCP request.
 */
public final class MonitorResources {
    private MonitorResources() {}

    /** The resource's JSON; a monitor the bearer may not see is NOT_FOUND, exactly as over REST. Blocks on Kafka. */
    public static JsonNode read(MonitorService monitors, MonitorUri ref, String headerBearer) {
        String bearer = ref.bearer(headerBearer);
        Reply reply = ref.state() ? monitors.state(ref.monitorId(), bearer) : monitors.get(ref.monitorId(), bearer);
        return reply.body();
    }

    /** {@code resources/read}'s result. */
    public static ObjectNode readResult(MonitorUri ref, JsonNode body) {
        ObjectNode result = Json.object();
        ObjectNode contents = result.putArray("contents").addObject();
        contents.put("uri", ref.uri());
        contents.put("mimeType", MonitorUri.MIME_TYPE);
        contents.put("text", new String(Json.bytes(body), StandardCharsets.UTF_8));
        return result;
    }

    /** {@code resources/list}'s result: both resources of every monitor the bearer may see (public ones without). */
    public static ObjectNode listResult(MonitorService monitors, String headerBearer) {
        ObjectNode result = Json.object();
        ArrayNode resources = result.putArray("resources");
        for (JsonNode monitor : monitors.list(headerBearer).body().path("monitors")) {
            String id = monitor.path("id").asText();
            String name = monitor.path("name").asText(id);
            resources.add(resource(
                    MonitorUri.SCHEME + id + "/definition",
                    id + " definition",
                    name + ": definition",
                    "The monitor's definition: owner, types, visibility, capabilities, limits and head."));
            resources.add(resource(
                    MonitorUri.SCHEME + id + "/state",
                    id + " state",
                    name + ": state",
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
        r.put("mimeType", MonitorUri.MIME_TYPE);
        return r;
    }
}
