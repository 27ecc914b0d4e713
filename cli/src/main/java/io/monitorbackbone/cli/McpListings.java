package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.mcp.McpTools;
import io.monitorbackbone.protocol.mcp.MonitorUri;

/** What {@code mp mcp} offers, shaped for the agreed protocol version: the tools, the resource templates, the resources. */
final class McpListings {
    private static final String SCHEME = MonitorUri.SCHEME;

    private final McpNegotiation negotiation;

    McpListings(McpNegotiation negotiation) {
        this.negotiation = negotiation;
    }

    /** {@code tools/list}: the catalogue the gateway serves at {@code /mcp}. */
    ObjectNode tools() {
        ObjectNode result = Json.object();
        ArrayNode tools = result.putArray("tools");
        for (McpTools.Tool tool : McpTools.all()) {
            ObjectNode t = tools.addObject();
            t.put("name", tool.name());
            if (negotiation.since("2025-06-18")) {
                t.put("title", tool.title());
            }
            t.put("description", tool.description());
            t.set("inputSchema", tool.inputSchema().deepCopy());
            if (negotiation.since("2025-03-26")) {
                t.putObject("annotations")
                        .put("title", tool.title())
                        .put("readOnlyHint", tool.readOnly())
                        .put("destructiveHint", tool.destructive())
                        .put("idempotentHint", tool.idempotent())
                        .put("openWorldHint", false);
            }
        }
        return result;
    }

    /** {@code resources/templates/list}. */
    ObjectNode templates() {
        ObjectNode result = Json.object();
        ArrayNode templates = result.putArray("resourceTemplates");
        templates.add(described(
                Json.object().put("uriTemplate", SCHEME + "{id}/definition").put("name", "monitor-definition"),
                "A monitor's definition",
                "The monitor's definition, as GET /mp/v0/monitors/{id} serves it. Public "
                        + "monitors are readable as they are; a private or shared monitor needs its token: append "
                        + "?token=<owner or subscribe token> to the URI (or start mp mcp with --token)."));
        templates.add(described(
                Json.object().put("uriTemplate", SCHEME + "{id}/state").put("name", "monitor-state"),
                "A monitor's state",
                "The monitor's computed state, as GET /mp/v0/monitors/{id}/state serves it. "
                        + "A private or shared monitor needs ?token=<owner or subscribe token> (or mp mcp --token)."));
        return result;
    }

    /** {@code resources/list}: both resources of every monitor in {@code GET monitors}'s answer. */
    ObjectNode resources(JsonNode monitors) {
        ObjectNode result = Json.object();
        ArrayNode resources = result.putArray("resources");
        for (JsonNode monitor : monitors.path("monitors")) {
            String id = monitor.path("id").asText();
            String name = monitor.path("name").asText(id);
            resources.add(resource(
                    SCHEME + id + "/definition",
                    id + " definition",
                    name + ": definition",
                    "The monitor's definition: owner, types, visibility, capabilities, limits and head."));
            resources.add(resource(
                    SCHEME + id + "/state",
                    id + " state",
                    name + ": state",
                    "The monitor's computed state: live, head, counters, ages, confidence and its missing inputs."));
        }
        return result;
    }

    /** {@code resources/read}'s result for one resource's JSON. */
    static ObjectNode contents(MonitorUri ref, JsonNode body) {
        ObjectNode result = Json.object();
        result.putArray("contents")
                .addObject()
                .put("uri", ref.uri())
                .put("mimeType", MonitorUri.MIME_TYPE)
                .put("text", new String(Json.bytes(body), java.nio.charset.StandardCharsets.UTF_8));
        return result;
    }

    private ObjectNode resource(String uri, String name, String title, String description) {
        return described(Json.object().put("uri", uri).put("name", name), title, description);
    }

    private ObjectNode described(ObjectNode node, String title, String description) {
        if (negotiation.since("2025-06-18")) {
            node.put("title", title);
        }
        node.put("description", description);
        node.put("mimeType", MonitorUri.MIME_TYPE);
        return node;
    }
}
