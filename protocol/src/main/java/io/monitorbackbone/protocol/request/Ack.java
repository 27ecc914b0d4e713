package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An ack: the cursor the reader has processed up to. REST carries it as the body, JSON-RPC and MCP as the call's
 * params; only {@code cursor} counts, other keys are ignored.
 */
public record Ack(long cursor) {

    /** An ack's body or a call's params. */
    public static Ack parse(ObjectNode body) {
        return new Ack(Fields.cursor(body.get("cursor")));
    }

    /** The body a client sends. */
    public ObjectNode toJson() {
        return io.monitorbackbone.protocol.Json.object().put("cursor", cursor);
    }
}
