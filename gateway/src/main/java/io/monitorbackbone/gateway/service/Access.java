package io.monitorbackbone.gateway.service;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.protocol.Subscription;

/**
 * The one answer to "may this bearer do this to that monitor or subscription": a monitor the bearer may see, the
 * subscription whose token it holds, and a filter checked against the types the monitor knows. A miss or a token
 * mismatch is checked again after catching up with the tables (a filter refusal after catching up with the log), since
 * another gateway may have written a moment ago. Every path asks here: pull, ack, SSE, seek, renew, retire, leases,
 * subscribe, publish and configure.
 */
final class Access {
    private final Tables tables;
    private final Log log;

    Access(Tables tables, Log log) {
        this.tables = tables;
        this.log = log;
    }

    /**
     * A filter checked against the types the monitor knows. A type seen only in the newest records may not have reached
     * this gateway's tail yet, so a refusal is decided only after the tail has caught up with the log's head.
     */
    io.monitorbackbone.protocol.Filter filter(com.fasterxml.jackson.databind.JsonNode node, Monitor monitor) {
        try {
            // What this gateway has read already, without following the log: a filter that passes on it (no filter,
            // or one naming declared types) needs nothing more. Following it here made every first subscription to a
            // monitor wait for the follower to take the log up, up to its fetch wait (500 ms).
            return io.monitorbackbone.protocol.Filter.parse(node, knownTypes(monitor, tables.peek(monitor.id())));
        } catch (ProtocolException e) {
            if (e.code() != ErrorCode.INVALID_FILTER) {
                throw e;
            }
            Tables.Tail tail = tables.tail(monitor.id());
            log.bounds(monitor.id()); // returns once this tail has read up to the log's end
            return io.monitorbackbone.protocol.Filter.parse(node, knownTypes(monitor, tail));
        }
    }

    /**
     * Declared types, those the projector's fold has seen in the whole log, and those in the records this gateway has
     * read; null (no check) once the log carried more types than the fold keeps.
     */
    private java.util.List<String> knownTypes(Monitor monitor, Tables.Tail tail) {
        io.monitorbackbone.protocol.Aggregate folded = tables.state(monitor.id());
        if (folded.typesOverflow()) {
            return null;
        }
        java.util.Set<String> seen = new java.util.TreeSet<>(folded.types());
        seen.addAll(tail.seenTypes());
        return io.monitorbackbone.protocol.Filter.knownTypes(monitor.types(), seen);
    }

    /** The monitor, if the bearer may see it; else NOT_FOUND with {@code notFound}, decided after catching up. */
    Monitor visibleMonitor(String id, String bearer, String notFound) {
        return visibleMonitor(tables, id, bearer, notFound);
    }

    /**
     * {@link #visibleMonitor(String, String, String)} for a service that reads only the tables (publish, configure):
     * the same check, so a monitor another gateway created a moment ago is found there too.
     */
    static Monitor visibleMonitor(Tables tables, String id, String bearer, String notFound) {
        Monitor m = tables.monitor(id);
        if (m == null || !m.visibleTo(bearer)) {
            tables.catchUp(Topics.MONITORS);
            m = tables.monitor(id);
        }
        if (m == null || !m.visibleTo(bearer)) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, notFound);
        }
        return m;
    }

    /** The subscription the bearer holds the token of; its cursor view is caught up with every gateway's writes. */
    Subscription authorized(String id, String bearer) {
        Subscription s = tables.subscription(id);
        if (s == null || !s.tokenIs(bearer)) {
            tables.catchUp(Topics.SUBSCRIPTIONS);
            s = tables.subscription(id);
        }
        tables.catchUp(Topics.CURSORS);
        return checked(id, s, bearer);
    }

    /**
     * The subscription as every gateway last wrote it, checked again: called under the subscription's lock by a
     * change written from it (renew, retire), so that another gateway's write a moment ago (the push disabled, a
     * re-key, a retirement) is built upon, never overwritten by this view's older record.
     */
    Subscription current(String id, String bearer) {
        tables.catchUp(Topics.SUBSCRIPTIONS);
        return checked(id, tables.subscription(id), bearer);
    }

    private Subscription checked(String id, Subscription s, String bearer) {
        if (s == null) {
            throw ProtocolException.subscriptionNotFound();
        }
        if (!s.tokenIs(bearer)) {
            throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "bearer token missing or invalid");
        }
        if (!s.active()) {
            throw ProtocolException.of(
                            ErrorCode.NOT_FOUND, "subscription retired; re-subscribe to reactivate (cursor kept)")
                    .with("retired", true)
                    .with("cursor", cursorOf(id).cursor());
        }
        return s;
    }

    /** Another replica may have written the subscription a moment before its cursor reached this one's view. */
    Cursor cursorOf(String subscriptionId) {
        Cursor c = tables.cursor(subscriptionId);
        if (c == null) {
            throw new ServerFault("this gateway has not yet read the subscription's cursor", null);
        }
        return c;
    }

    Monitor monitorOf(Subscription s) {
        return tables.monitor(s.monitor());
    }

    /** How long a subscription may go without pulling before the sweep retires it. */
    static long muteSeconds(Subscription s, Monitor m) {
        if (s.retireAfterMuteSeconds() != null) {
            return s.retireAfterMuteSeconds();
        }
        return m != null && m.retireAfterMuteSeconds() != null
                ? m.retireAfterMuteSeconds()
                : Limits.RETIRE_AFTER_MUTE_SECONDS_DEFAULT;
    }
}
