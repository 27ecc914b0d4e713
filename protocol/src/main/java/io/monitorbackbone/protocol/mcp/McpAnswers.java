package io.monitorbackbone.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Failures;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.JsonRpc;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;

/**
 * How a protocol error is answered over MCP, written once for the gateway's {@code /mcp} and {@code mp mcp}
 * (stdio). A refused tool call is a tool result with {@code isError: true} whose content is the protocol error body
 * (MCP: errors the model should see are tool results, not JSON-RPC errors). A refused resource request is a JSON-RPC
 * error carrying that body as {@code data}, under MCP's {@link #RESOURCE_NOT_FOUND} for a monitor that does not exist
 * or may not be seen (the same answer, as over REST), and otherwise the protocol's own code
 * ({@link ErrorCode#rpcCode()}) as {@code /rpc} answers it, except a protocol code whose number MCP gives a meaning of
 * its own ({@code TIER_NOT_ASSERTABLE}'s -32002), which goes out as JSON-RPC's {@link #INVALID_PARAMS} (it is a 400,
 * a request that cannot be done as sent): on MCP, -32002 means resource-not-found and nothing else.
 */
public final class McpAnswers {
    /** MCP's code for {@code resources/read} (and subscribe) of a resource that does not exist. */
    public static final int RESOURCE_NOT_FOUND = -32002;
    /** JSON-RPC 2.0's codes. */
    public static final int PARSE_ERROR = -32700;

    public static final int INVALID_REQUEST = -32600;
    public static final int METHOD_NOT_FOUND = -32601;
    public static final int INVALID_PARAMS = -32602;
    public static final int INTERNAL_ERROR = -32603;

    private McpAnswers() {}

    /** The content of a refused tool call: the protocol error body of whatever failed. */
    public static ObjectNode toolError(Throwable failure) {
        return Failures.protocolError(failure).toJson();
    }

    /**
     * A tool result: the body as text content, as {@code structuredContent} too when {@code structured} (protocol
     * versions from 2025-06-18) and the body is an object.
     */
    public static ObjectNode toolResult(boolean isError, JsonNode body, boolean structured) {
        ObjectNode result = Json.object();
        result.putArray("content")
                .addObject()
                .put("type", "text")
                .put("text", new String(Json.bytes(body), StandardCharsets.UTF_8));
        if (structured && body.isObject()) {
            result.set("structuredContent", body);
        }
        result.put("isError", isError);
        return result;
    }

    /** The JSON-RPC code of a refused resource request with this protocol error code. */
    public static int resourceErrorCode(ErrorCode code) {
        if (code == ErrorCode.NOT_FOUND) {
            return RESOURCE_NOT_FOUND;
        }
        return code.rpcCode() == RESOURCE_NOT_FOUND ? INVALID_PARAMS : code.rpcCode();
    }

    /** A refused resource request as its JSON-RPC error, the protocol error body as {@code data}. */
    public static ObjectNode resourceError(JsonNode id, Throwable failure) {
        ProtocolException e = Failures.protocolError(failure);
        return JsonRpc.error(id, resourceErrorCode(e.code()), e.getMessage(), e.toJson());
    }

    /**
     * A refusal another server sent as a protocol error body ({@code {code, error, ...}}), answered as
     * {@link #resourceError(JsonNode, Throwable)} answers one of ours; a code this protocol does not define is
     * JSON-RPC's internal error.
     */
    public static ObjectNode resourceError(JsonNode id, JsonNode body) {
        String code = body.path("code").asText();
        int rpcCode;
        try {
            rpcCode = resourceErrorCode(ErrorCode.valueOf(code));
        } catch (IllegalArgumentException unknown) {
            rpcCode = INTERNAL_ERROR;
        }
        return JsonRpc.error(id, rpcCode, body.path("error").asText(code), body);
    }
}
