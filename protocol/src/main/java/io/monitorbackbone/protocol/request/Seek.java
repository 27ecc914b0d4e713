package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;

/** {@code POST /mp/v0/subscriptions/{id}/seek}: where the cursor goes, and why (a seek needs a reason). */
public record Seek(long cursor, String reason) {
    public static Seek parse(ObjectNode body) {
        long cursor = Fields.cursor(body.get("cursor"));
        String reason = Json.text(body, "reason");
        if (reason == null || reason.isBlank()) {
            throw ProtocolException.of(ErrorCode.INVALID, "seek requires a reason");
        }
        return new Seek(cursor, reason);
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        out.put("cursor", cursor);
        out.put("reason", reason);
        return out;
    }
}
