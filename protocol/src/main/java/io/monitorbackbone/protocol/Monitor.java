package io.monitorbackbone.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * A monitor definition as stored in the compacted {@code mp.monitors} topic, token hashes included. What is served is
 * {@link #served(long, ObjectNode)}: never the hashes, plus the fields computed at read time.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Monitor(
        String id,
        String name,
        String description,
        int version,
        String owner,
        JsonNode source,
        JsonNode filter,
        String horizon,
        List<String> capabilities,
        JsonNode cadence,
        Long ttlSeconds,
        Long retireAfterMuteSeconds,
        JsonNode budget,
        String visibility,
        JsonNode rules,
        List<String> types,
        boolean attested,
        List<String> defaultGrant,
        String created,
        String updated,
        boolean paused,
        boolean retired,
        String ownerTokenHash,
        String subscribeTokenHash,
        Long retentionSeconds,
        Integer deliveryCountLimit) {

    /** How many rejects dead-letter a subject, unless the monitor's {@code limits} say otherwise. */
    public static final int DEFAULT_DELIVERY_COUNT_LIMIT = 5;

    public int deliveryCountLimitOrDefault() {
        return deliveryCountLimit != null ? deliveryCountLimit : DEFAULT_DELIVERY_COUNT_LIMIT;
    }

    public boolean active() {
        return !paused && !retired;
    }

    public boolean ownerIs(String bearer) {
        return Tokens.matches(bearer, ownerTokenHash);
    }

    public boolean subscribeTokenIs(String bearer) {
        return Tokens.matches(bearer, subscribeTokenHash);
    }

    /** Public monitors are visible to anyone; shared ones to the owner and subscribe token; private to the owner. */
    public boolean visibleTo(String bearer) {
        return switch (visibility) {
            case "public" -> true;
            case "shared" -> ownerIs(bearer) || subscribeTokenIs(bearer);
            default -> ownerIs(bearer);
        };
    }

    public boolean ownerIsHuman() {
        return owner != null && owner.startsWith("human:");
    }

    public ObjectNode served(long head, ObjectNode limits) {
        ObjectNode m = Json.object();
        m.put("id", id);
        m.put("name", name);
        m.put("description", description);
        m.put("version", version);
        m.put("owner", owner);
        m.set("source", source);
        m.set("filter", filter);
        m.put("horizon", horizon);
        m.set("capabilities", Json.array(capabilities));
        m.set("cadence", cadence);
        m.put("ttl_seconds", ttlSeconds);
        m.put("retire_after_mute_seconds", retireAfterMuteSeconds);
        m.set("budget", budget);
        m.put("visibility", visibility);
        m.set("rules", rules);
        m.set("types", Json.array(types));
        m.put("attested", attested);
        m.set("default_grant", Json.array(defaultGrant));
        ObjectNode servedLimits = limits.deepCopy();
        servedLimits.put("retention_seconds", retentionSeconds);
        servedLimits.put("delivery_count_limit", deliveryCountLimitOrDefault());
        m.set("limits", servedLimits);
        m.put("created", created);
        m.put("updated", updated);
        m.put("active", active());
        m.put("head", head);
        return m;
    }
}
