package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.JsonRpc;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The server's answers as {@code mp mcp} passes them on, the way the gateway's {@code /mcp} answers the same requests
 * ({@link McpAnswers} is the one mapping both use): a tool call's JSON-RPC {@code result} is the tool result and its
 * {@code error.data} (the protocol error body) a tool error; a resource read's REST body is the resource, its refusal a
 * JSON-RPC error. No answer, a 5xx or a body that is not the protocol's is {@code UNAVAILABLE}, and a line on stderr.
 */
final class McpRemap {
    private final String base;
    private final Consumer<String> log;

    /** {@code base} names the server in messages; {@code log} gets a line for every server that did not answer. */
    McpRemap(String base, Consumer<String> log) {
        this.base = base;
        this.log = log;
    }

    /** A call McpTools refused before anything was sent (a missing argument, no token). */
    static ObjectNode toolRefused(ProtocolException refusal, boolean structured) {
        return McpAnswers.toolResult(true, McpAnswers.toolError(refusal), structured);
    }

    /** {@code POST /mp/v0/rpc}'s answer to a tool call, as the tool result. */
    ObjectNode toolOutcome(MonitorClient.Reply reply, boolean structured) {
        JsonNode json = reply.json();
        if (reply.ok() && json != null && json.has("result")) {
            return McpAnswers.toolResult(false, json.get("result"), structured);
        }
        JsonNode data = json == null ? null : json.path("error").path("data");
        if (reply.ok() && data != null && data.path("code").isTextual()) {
            return McpAnswers.toolResult(true, data, structured);
        }
        if (!reply.ok() && json != null && json.path("code").isTextual()) {
            // refused before the binding, e.g. ORIGIN_REFUSED or TOO_LARGE: already a protocol error body
            return McpAnswers.toolResult(true, json, structured);
        }
        String message = json != null && json.path("error").path("message").isTextual()
                ? json.path("error").path("message").asText()
                : "the server at " + base + " gave no JSON-RPC answer (HTTP " + reply.status() + ")";
        return toolUnreachable(message, structured);
    }

    /** A tool call the server did not answer. */
    ObjectNode toolUnreachable(String message, boolean structured) {
        log.accept(message);
        return McpAnswers.toolResult(true, unavailable(message).toJson(), structured);
    }

    /** A URI that names no resource of this server. */
    static ObjectNode resourceRefused(JsonNode id, ProtocolException refusal) {
        return McpAnswers.resourceError(id, refusal);
    }

    /** A REST read's answer as the JSON-RPC answer to the resource request: {@code success} of its body, or the refusal. */
    ObjectNode resource(JsonNode id, MonitorClient.Reply reply, Function<JsonNode, ObjectNode> success) {
        JsonNode json = reply.json();
        if (reply.ok() && json != null) {
            return JsonRpc.success(id, success.apply(json));
        }
        if (reply.serverFault() || json == null || !json.path("code").isTextual()) {
            return resourceUnreachable(id, "the server at " + base + " could not answer (HTTP " + reply.status() + ")");
        }
        return McpAnswers.resourceError(id, json);
    }

    /** A resource request the server did not answer. */
    ObjectNode resourceUnreachable(JsonNode id, String message) {
        log.accept(message);
        return McpAnswers.resourceError(id, unavailable(message));
    }

    private static ProtocolException unavailable(String message) {
        return ProtocolException.serverFault(message, false);
    }
}
