package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;

/** {@code POST /mp/v0/subscriptions/{id}/retire}: the reason the retirement row records ({@code by request} if none). */
public record RetireSubscription(String reason) {
    public static final String DEFAULT_REASON = "by request";

    public static RetireSubscription parse(ObjectNode body) {
        String reason = Json.text(body, "reason");
        return new RetireSubscription(reason != null ? reason : DEFAULT_REASON);
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        out.put("reason", reason);
        return out;
    }
}
