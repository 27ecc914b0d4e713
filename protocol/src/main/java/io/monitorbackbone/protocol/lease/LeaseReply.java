package io.monitorbackbone.protocol.lease;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.util.Objects;

/**
 * The answer to one lease request (the value on {@code mp.lease-replies}, keyed by the request id): the HTTP status
 * and body of REFERENCE-WIRE §8.
 *
 * @param eventId the {@code ce_id} of the lease observation this answer reports, or null when none was written. A
 *                {@code seq} in the body is null here because only the broker knows it; the gateway fills it in from
 *                the offset of the record in {@code mp.obs.<monitor>} whose {@code ce_id} is this id.
 */
public record LeaseReply(int status, ObjectNode body, String eventId) {

    public LeaseReply {
        Objects.requireNonNull(body, "body");
    }

    public ObjectNode toJson() {
        ObjectNode o = Json.object();
        o.put("status", status);
        o.set("body", body);
        o.put("event_id", eventId);
        return o;
    }

    public static LeaseReply fromJson(JsonNode o) {
        return new LeaseReply(o.path("status").asInt(), (ObjectNode) o.get("body"), Json.text(o, "event_id"));
    }
}
