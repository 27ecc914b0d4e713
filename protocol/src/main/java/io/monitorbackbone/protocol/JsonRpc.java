package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** JSON-RPC 2.0 reply envelopes, shared by the gateway's {@code /rpc} and {@code /mcp} and the stdio MCP server. */
public final class JsonRpc {
    private JsonRpc() {}

    public static ObjectNode success(JsonNode id, JsonNode result) {
        ObjectNode r = envelope(id);
        r.set("result", result);
        return r;
    }

    /** @param data null for none */
    public static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
        ObjectNode r = envelope(id);
        ObjectNode error = r.putObject("error");
        error.put("code", code);
        error.put("message", message);
        if (data != null) {
            error.set("data", data);
        }
        return r;
    }

    private static ObjectNode envelope(JsonNode id) {
        ObjectNode r = Json.object();
        r.put("jsonrpc", "2.0");
        r.set("id", id == null ? Json.MAPPER.nullNode() : id);
        return r;
    }
}
