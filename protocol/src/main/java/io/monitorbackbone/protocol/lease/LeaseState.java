package io.monitorbackbone.protocol.lease;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.util.Objects;

/**
 * Everything the leases service keeps for one (monitor, subject): the lease (null when none, e.g. never claimed or
 * completed), whether the monitor has published the subject (the index a claim is checked against, kept even after
 * the observation itself is compacted away), and the last accepted request so an identical repeat gets the same
 * answer. {@code horizon} and {@code attested} are the monitor's, as its last command carried them: the expiry sweep
 * writes a row with no command to take them from.
 */
public record LeaseState(
        String monitor, String subject, String horizon, boolean attested, boolean published, Lease lease, Prior last) {

    /** The last request that changed this state, and what it was answered. */
    public record Prior(String subscription, String action, String fingerprint, LeaseReply reply) {
        public boolean repeatedBy(LeaseCommand command) {
            return subscription.equals(command.subscription())
                    && action.equals(command.action())
                    && fingerprint.equals(command.fingerprint());
        }
    }

    public LeaseState {
        Objects.requireNonNull(monitor, "monitor");
        Objects.requireNonNull(subject, "subject");
    }

    public static LeaseState empty(String monitor, String subject) {
        return new LeaseState(monitor, subject, null, false, false, null, null);
    }

    public LeaseState withLease(Lease newLease, Prior newLast) {
        return new LeaseState(monitor, subject, horizon, attested, published, newLease, newLast);
    }

    public LeaseState withMonitor(String newHorizon, boolean newAttested) {
        return new LeaseState(monitor, subject, newHorizon, newAttested, published, lease, last);
    }

    public LeaseState markedPublished(String observedHorizon) {
        return new LeaseState(
                monitor, subject, horizon == null ? observedHorizon : horizon, attested, true, lease, last);
    }

    public ObjectNode toJson() {
        ObjectNode o = Json.object();
        o.put("monitor", monitor);
        o.put("subject", subject);
        o.put("horizon", horizon);
        o.put("attested", attested);
        o.put("published", published);
        o.set("lease", lease == null ? Json.MAPPER.nullNode() : lease.toJson());
        if (last == null) {
            o.putNull("last");
        } else {
            ObjectNode l = o.putObject("last");
            l.put("subscription", last.subscription());
            l.put("action", last.action());
            l.put("fingerprint", last.fingerprint());
            l.set("reply", last.reply().toJson());
        }
        return o;
    }

    public static LeaseState fromJson(JsonNode o) {
        JsonNode lease = o.get("lease");
        JsonNode last = o.get("last");
        return new LeaseState(
                Json.text(o, "monitor"),
                Json.text(o, "subject"),
                Json.text(o, "horizon"),
                o.path("attested").asBoolean(),
                o.path("published").asBoolean(),
                lease == null || lease.isNull() ? null : Lease.fromJson(lease),
                last == null || last.isNull()
                        ? null
                        : new Prior(
                                Json.text(last, "subscription"),
                                Json.text(last, "action"),
                                Json.text(last, "fingerprint"),
                                LeaseReply.fromJson(last.get("reply"))));
    }
}
