package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import java.time.Instant;

/**
 * {@code POST /mp/v0/subscriptions/{id}/seek}: where the cursor goes, and why (a seek needs a reason). Where is a
 * {@code cursor} (a seq), or, beyond the protocol, a {@code time}: the cursor goes to the first record of the log
 * appended at or after it (the extension {@code io.monitorbackbone/seek-by-time} in discover).
 *
 * @param cursor the seq to go to; 0 when the seek is by {@code time}
 * @param time   the time to go to, or null for a seek by {@code cursor}
 */
public record Seek(long cursor, Instant time, String reason) {
    public Seek(long cursor, String reason) {
        this(cursor, null, reason);
    }

    public static Seek parse(ObjectNode body) {
        JsonNode time = body.get("time");
        Instant at = null;
        long cursor = 0;
        if (time != null && !time.isNull()) {
            JsonNode c = body.get("cursor");
            if (c != null && !c.isNull()) {
                throw ProtocolException.of(ErrorCode.INVALID, "a seek takes a cursor or a time, not both")
                        .with("cursor", c)
                        .with("time", time);
            }
            at = Fields.time(time, "time");
        } else {
            cursor = Fields.cursor(body.get("cursor"));
        }
        String reason = Json.text(body, "reason");
        if (reason == null || reason.isBlank()) {
            throw ProtocolException.of(ErrorCode.INVALID, "seek requires a reason");
        }
        return new Seek(cursor, at, reason);
    }

    /** Whether this seek names a time rather than a seq. */
    public boolean byTime() {
        return time != null;
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        if (byTime()) {
            out.put("time", time.toString());
        } else {
            out.put("cursor", cursor);
        }
        out.put("reason", reason);
        return out;
    }
}
