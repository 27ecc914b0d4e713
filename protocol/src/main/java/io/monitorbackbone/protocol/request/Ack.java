package io.monitorbackbone.protocol.request;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An ack: the cursor the reader has processed up to. REST carries it as the body, JSON-RPC and MCP as the call's
 * params; only {@code cursor} counts, other keys are ignored.
 */
public record Ack(long cursor) {

    /** An ack's body or a call's params. */
    public static Ack parse(ObjectNode body) {
        return new Ack(cursor(body.get("cursor")));
    }

    /** A cursor in a body: an integer or a string of digits; refused naming what was given. */
    public static long cursor(JsonNode value) {
        if (value != null && value.isIntegralNumber() && value.canConvertToLong() && value.asLong() >= 0) {
            return value.asLong();
        }
        if (value != null && value.isTextual() && value.asText().matches("[0-9]{1,18}")) {
            return Long.parseLong(value.asText());
        }
        throw ProtocolException.of(ErrorCode.INVALID, "cursor must be a non-negative integer").with("cursor", value);
    }
}
