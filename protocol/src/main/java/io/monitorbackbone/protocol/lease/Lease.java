package io.monitorbackbone.protocol.lease;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * One lease as {@code schemas/lease.json} serves it (Kubernetes Lease field names). A lease whose holder is null is
 * free but remembered: its attempts count towards dead-lettering, and a dead-lettered lease is never claimed again.
 */
public record Lease(
        String subject,
        String holder,
        long leaseDurationSeconds,
        Instant acquireTime,
        Instant renewTime,
        int leaseTransitions,
        int attempts,
        int deliveryCountLimit,
        boolean deadLetter) {

    public static final String HOLDER_PREFIX = "sub:";

    public Lease {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(acquireTime, "acquireTime");
        Objects.requireNonNull(renewTime, "renewTime");
        if (leaseDurationSeconds < 1) {
            throw new IllegalArgumentException("lease_duration_seconds must be positive: " + leaseDurationSeconds);
        }
        // Served times have milliseconds; keeping no more makes a stored lease equal to the one read back.
        acquireTime = acquireTime.truncatedTo(ChronoUnit.MILLIS);
        renewTime = renewTime.truncatedTo(ChronoUnit.MILLIS);
    }

    public static String holderOf(String subscriptionId) {
        return HOLDER_PREFIX + subscriptionId;
    }

    public Instant expires() {
        return renewTime.plusSeconds(leaseDurationSeconds);
    }

    /** The protocol's rule, on a millisecond clock: the deadline itself is still inside the lease. */
    public boolean expiredAt(Instant now) {
        return now.isAfter(expires());
    }

    public boolean heldAt(Instant now) {
        return holder != null && !expiredAt(now);
    }

    public boolean heldBy(String candidate, Instant now) {
        return heldAt(now) && holder.equals(candidate);
    }

    public Lease withHolder(String newHolder) {
        return new Lease(
                subject,
                newHolder,
                leaseDurationSeconds,
                acquireTime,
                renewTime,
                leaseTransitions,
                attempts,
                deliveryCountLimit,
                deadLetter);
    }

    public ObjectNode toJson() {
        ObjectNode o = Json.object();
        o.put("subject", subject);
        o.put("holder", holder);
        o.put("lease_duration_seconds", leaseDurationSeconds);
        o.put("acquire_time", Times.format(acquireTime));
        o.put("renew_time", Times.format(renewTime));
        o.put("lease_transitions", leaseTransitions);
        o.put("attempts", attempts);
        o.put("delivery_count_limit", deliveryCountLimit);
        o.put("dead_letter", deadLetter);
        return o;
    }

    public static Lease fromJson(JsonNode o) {
        return new Lease(
                Json.text(o, "subject"),
                Json.text(o, "holder"),
                o.path("lease_duration_seconds").asLong(),
                Times.parseOrNull(Json.text(o, "acquire_time")),
                Times.parseOrNull(Json.text(o, "renew_time")),
                o.path("lease_transitions").asInt(),
                o.path("attempts").asInt(),
                o.path("delivery_count_limit").asInt(),
                o.path("dead_letter").asBoolean());
    }
}
