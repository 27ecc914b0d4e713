package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.JsonRpc;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * MCP's stdio framing: one JSON-RPC 2.0 message per line. {@link #read} tells what a line from the client is; {@link #send}
 * writes one message as one flushed line, and stdout carries nothing else. Once stdout is gone, nothing more is sent.
 */
final class McpFraming {

    /** What one line from the client is. */
    sealed interface Frame {}

    /** A request: answer it, under its id. */
    record Request(JsonNode id, String method, JsonNode params) implements Frame {}

    /** A notification: never answered. */
    record Notification(String method, JsonNode params) implements Frame {}

    /** A line that is not a message this server takes: answer it with {@code reply}. */
    record Refused(JsonNode reply) implements Frame {}

    /** Nothing to do: a blank line, or a response (this server sends no requests). */
    record Ignored() implements Frame {}

    private final Writer out;
    private volatile boolean closed;

    McpFraming(Writer out) {
        this.out = out;
    }

    static Frame read(String line) {
        if (line.isBlank()) {
            return new Ignored();
        }
        JsonNode message;
        try {
            message = Json.MAPPER.readTree(line);
        } catch (IOException e) {
            return refused(null, McpAnswers.PARSE_ERROR, "a line is not JSON");
        }
        if (message == null || !message.isObject()) {
            return refused(
                    null,
                    McpAnswers.INVALID_REQUEST,
                    "a message is one JSON-RPC object per line (batches are not supported)");
        }
        JsonNode id = message.get("id");
        if (!message.path("method").isTextual()) {
            return message.has("result") || message.has("error")
                    ? new Ignored()
                    : refused(id, McpAnswers.INVALID_REQUEST, "a request needs a method");
        }
        String method = message.get("method").asText();
        JsonNode params = message.path("params").isObject() ? message.get("params") : Json.object();
        if (id == null) {
            return new Notification(method, params);
        }
        if (!id.isTextual() && !id.isIntegralNumber()) {
            return refused(null, McpAnswers.INVALID_REQUEST, "a request id is a string or an integer");
        }
        return new Request(id, method, params);
    }

    private static Refused refused(JsonNode id, int code, String message) {
        return new Refused(JsonRpc.error(id, code, message, null));
    }

    /** One message, one line, flushed; a failed write closes the channel for good. */
    synchronized void send(JsonNode message) {
        if (closed) {
            return;
        }
        try {
            out.write(new String(Json.bytes(message), UTF_8));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            closed = true;
        }
        if (out instanceof PrintWriter writer && writer.checkError()) {
            closed = true;
        }
    }

    /** Whether stdout is gone (the host stopped reading). */
    boolean closed() {
        return closed;
    }
}
