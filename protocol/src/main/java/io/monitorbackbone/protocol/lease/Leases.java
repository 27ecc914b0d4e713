package io.monitorbackbone.protocol.lease;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The lease rules (REFERENCE-WIRE §8) as pure functions of the state of one (monitor, subject), one request and the
 * time. Whoever calls them must call them for one key at a time, in order: that is what makes a lease linearizable.
 */
public final class Leases {
    public static final String SWEEPER = "system:sweep";
    public static final String EXPIRED = "expired";

    private Leases() {}

    public static LeaseDecision decide(LeaseState current, LeaseCommand command, Instant now) {
        Instant at = now.truncatedTo(ChronoUnit.MILLIS);
        LeaseState start = current == null ? LeaseState.empty(command.monitor(), command.subject()) : current;
        if (!start.monitor().equals(command.monitor()) || !start.subject().equals(command.subject())) {
            throw new IllegalArgumentException("command for " + command.key() + " decided against the state of "
                    + LeaseCommand.key(start.monitor(), start.subject()));
        }
        // An expired lease loses its holder before anything else is decided, as if the sweep had just run.
        LeaseDecision swept = expire(current, at);
        Step step = new Step(swept, command, at);
        return switch (command.action()) {
            case LeaseCommand.CLAIM -> claim(step);
            case LeaseCommand.RENEW -> renew(step);
            case LeaseCommand.COMPLETE, LeaseCommand.RELEASE, LeaseCommand.REJECT -> finish(step);
            default -> throw new IllegalArgumentException("unknown lease action " + command.action());
        };
    }

    /** The sweep: a held lease past its deadline loses its holder, and the log says so. */
    public static LeaseDecision expire(LeaseState current, Instant now) {
        Instant at = now.truncatedTo(ChronoUnit.MILLIS);
        Lease lease = current == null ? null : current.lease();
        if (lease == null || lease.holder() == null || !lease.expiredAt(at)) {
            return LeaseDecision.unchanged(current);
        }
        ObjectNode payload = Json.object();
        payload.put("action", EXPIRED);
        payload.put("subject", lease.subject());
        payload.put("holder", lease.holder());
        Draft row = ProtocolRows.row(
                current.monitor(),
                current.attested(),
                current.horizon(),
                Vocabulary.LEASE,
                SWEEPER,
                lease.subject(),
                payload,
                false,
                at);
        return new LeaseDecision(
                null,
                current.withLease(lease.withHolder(null), current.last()),
                true,
                List.of(new LeaseDecision.Row(null, row)));
    }

    /**
     * The monitor published the subject (a user observation in its log): from now on its subscriptions may claim it,
     * even after that observation is compacted away. Returns {@code current} itself when it already knew.
     */
    public static LeaseState markPublished(LeaseState current, String monitor, String subject, String horizon) {
        if (current != null && current.published()) {
            return current;
        }
        return (current == null ? LeaseState.empty(monitor, subject) : current).markedPublished(horizon);
    }

    private static LeaseDecision claim(Step step) {
        LeaseCommand command = step.command;
        LeaseState state = step.state();
        if (!command.published() && !state.published()) {
            return step.refuse(ProtocolException.of(
                            ErrorCode.NOT_FOUND,
                            "this subscription's monitor never published "
                                    + "that subject; a subscription claims only what its own monitor published")
                    .with("subject", command.subject())
                    .with("monitor", command.monitor()));
        }
        Lease lease = state.lease();
        if (lease != null && lease.deadLetter()) {
            return step.refuse(ProtocolException.of(
                            ErrorCode.DEAD_LETTERED,
                            "subject was dead-lettered after " + lease.attempts()
                                    + " attempts; it is not delivered again")
                    .with("subject", lease.subject())
                    .with("attempts", lease.attempts())
                    .with("delivery_count_limit", lease.deliveryCountLimit()));
        }
        if (lease != null && lease.heldBy(command.holder(), step.now)) {
            return step.answer(claimBody(lease, true), 200);
        }
        if (lease != null && lease.heldAt(step.now)) {
            return step.refuse(ProtocolException.of(ErrorCode.LEASE_HELD, "subject is held by another holder")
                    .with("holder", lease.holder())
                    .with("renew_time", Times.format(lease.renewTime()))
                    .with("expires", Times.format(lease.expires())));
        }
        long duration = command.leaseDurationSeconds() == null
                ? LeaseCommand.DEFAULT_LEASE_DURATION_SECONDS
                : command.leaseDurationSeconds();
        // Acquiring a lease that already exists (released, rejected, expired) is a redelivery: Kubernetes counts the
        // transition, share groups count the delivery. A completed lease is gone, so the next claim starts at 1.
        Lease granted = lease == null
                ? new Lease(
                        command.subject(),
                        command.holder(),
                        duration,
                        step.now,
                        step.now,
                        0,
                        1,
                        command.deliveryCountLimit(),
                        false)
                : new Lease(
                        command.subject(),
                        command.holder(),
                        duration,
                        step.now,
                        step.now,
                        lease.leaseTransitions() + 1,
                        lease.attempts() + 1,
                        command.deliveryCountLimit(),
                        false);
        ObjectNode payload = step.payload();
        payload.put("lease_duration_seconds", duration);
        payload.put("renew_time", Times.format(granted.renewTime()));
        payload.put("expires", Times.format(granted.expires()));
        payload.put("note", command.note());
        return step.accept(granted, 201, claimBody(granted, false), payload);
    }

    private static LeaseDecision renew(Step step) {
        LeaseCommand command = step.command;
        Lease lease = step.state().lease();
        if (lease == null || !lease.heldBy(command.holder(), step.now)) {
            return step.lost(lease);
        }
        long duration =
                command.leaseDurationSeconds() == null ? lease.leaseDurationSeconds() : command.leaseDurationSeconds();
        Lease renewed = new Lease(
                lease.subject(),
                lease.holder(),
                duration,
                lease.acquireTime(),
                step.now,
                lease.leaseTransitions(),
                lease.attempts(),
                lease.deliveryCountLimit(),
                false);
        ObjectNode body = Json.object();
        body.set("lease", renewed.toJson());
        body.put("expires", Times.format(renewed.expires()));
        ObjectNode payload = step.payload();
        payload.put("renew_time", Times.format(renewed.renewTime()));
        payload.put("expires", Times.format(renewed.expires()));
        payload.put("note", command.note());
        return step.accept(renewed, 200, body, payload);
    }

    /** complete, release and reject: the holder lets go, saying how it went. */
    private static LeaseDecision finish(Step step) {
        LeaseCommand command = step.command;
        LeaseState.Prior last = step.state().last();
        if (last != null && last.repeatedBy(command)) {
            return step.repeat(last.reply());
        }
        Lease lease = step.state().lease();
        if (lease == null || !lease.heldBy(command.holder(), step.now)) {
            return step.lost(lease);
        }
        ObjectNode body = Json.object();
        body.put("ok", true);
        // The seq exists once the broker has appended the row; the gateway fills it in (see LeaseReply.eventId).
        body.putNull("seq");
        ObjectNode payload = step.payload();
        if (LeaseCommand.COMPLETE.equals(command.action())) {
            payload.put("outcome", command.outcome());
            payload.set("evidence", command.evidence() == null ? Json.MAPPER.nullNode() : command.evidence());
            payload.put("note", command.note());
            return step.accept(null, 200, body, payload);
        }
        boolean deadLetter =
                LeaseCommand.REJECT.equals(command.action()) && lease.attempts() >= lease.deliveryCountLimit();
        Lease freed = new Lease(
                lease.subject(),
                null,
                lease.leaseDurationSeconds(),
                lease.acquireTime(),
                lease.renewTime(),
                lease.leaseTransitions(),
                lease.attempts(),
                lease.deliveryCountLimit(),
                deadLetter);
        body.put("dead_letter", deadLetter);
        payload.put("reason", command.reason());
        payload.put("attempts", freed.attempts());
        payload.put("dead_letter", deadLetter);
        return step.accept(freed, 200, body, payload);
    }

    private static ObjectNode claimBody(Lease lease, boolean idempotent) {
        ObjectNode body = Json.object();
        body.set("lease", lease.toJson());
        body.put("expires", Times.format(lease.expires()));
        body.put("idempotent", idempotent);
        return body;
    }

    /** One request being decided: the state it started from, the sweep already applied, and how to answer. */
    private record Step(LeaseDecision swept, LeaseCommand command, Instant now) {

        LeaseState state() {
            return swept.state() == null ? LeaseState.empty(command.monitor(), command.subject()) : swept.state();
        }

        LeaseDecision refuse(ProtocolException refusal) {
            return answer(refusal.toJson(), refusal.status());
        }

        LeaseDecision lost(Lease lease) {
            return refuse(ProtocolException.of(ErrorCode.LEASE_LOST, "this subscription no longer holds the lease")
                    .with("holder", lease == null ? null : lease.holder()));
        }

        /** An answer that changes nothing beyond the sweep. */
        LeaseDecision answer(ObjectNode body, int status) {
            return new LeaseDecision(new LeaseReply(status, body, null), swept.state(), swept.changed(), swept.rows());
        }

        LeaseDecision repeat(LeaseReply prior) {
            return new LeaseDecision(prior, swept.state(), swept.changed(), swept.rows());
        }

        ObjectNode payload() {
            ObjectNode payload = Json.object();
            payload.put("action", command.action());
            payload.put("subject", command.subject());
            payload.put("subscription", command.subscription());
            return payload;
        }

        LeaseDecision accept(Lease next, int status, ObjectNode body, ObjectNode payload) {
            LeaseReply reply = new LeaseReply(status, body, command.requestId());
            LeaseState.Prior prior =
                    new LeaseState.Prior(command.subscription(), command.action(), command.fingerprint(), reply);
            LeaseState after = state().markedPublished(command.horizon())
                    .withMonitor(command.horizon(), command.attested())
                    .withLease(next, prior);
            Draft row = ProtocolRows.row(
                    command.monitor(),
                    command.attested(),
                    command.horizon(),
                    Vocabulary.LEASE,
                    command.subscriber(),
                    command.subject(),
                    payload,
                    false,
                    now);
            List<LeaseDecision.Row> rows = new ArrayList<>(swept.rows());
            rows.add(new LeaseDecision.Row(command.requestId(), row));
            return new LeaseDecision(reply, after, true, rows);
        }
    }
}
