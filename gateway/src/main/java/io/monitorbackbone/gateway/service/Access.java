package io.monitorbackbone.gateway.service;

import io.monitorbackbone.gateway.ServerFault;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Subscription;

/**
 * Looking things up for a request: what the credential may see, and the subscription's cursor as the cluster last
 * acknowledged it. A miss or a token mismatch is checked again after catching up with the tables, since another gateway
 * may have written a moment ago.
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
        Tables.Tail tail = tables.tail(monitor.id());
        try {
            return io.monitorbackbone.protocol.Filter.parse(node, knownTypes(monitor, tail));
        } catch (ProtocolException e) {
            if (e.code() != ErrorCode.INVALID_FILTER) {
                throw e;
            }
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

    Monitor visibleMonitor(String id, String bearer, String notFound) {
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
        if (s == null) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "subscription not found");
        }
        if (!s.tokenIs(bearer)) {
            throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "bearer token missing or invalid");
        }
        tables.catchUp(Topics.CURSORS);
        if (!s.active()) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "subscription retired; re-subscribe to reactivate (cursor kept)")
                    .with("retired", true).with("cursor", cursorOf(id).cursor());
        }
        return s;
    }

    /** Another replica may have written the subscription a moment before its cursor reached this one's view. */
    Cursor cursorOf(String subscriptionId) {
        Cursor c = tables.cursor(subscriptionId);
        if (c == null) {
            throw new ServerFault("this gateway has not yet read the subscription's cursor; retry", null);
        }
        return c;
    }

    Monitor monitorOf(Subscription s) {
        return tables.monitor(s.monitor());
    }

    /** The monitor's filter, the subscription's, and an inline one: AND-ed, so each can only narrow. */
    static Filter effectiveFilter(Monitor monitor, Subscription s, Filter inline) {
        return Filter.parse(monitor.filter(), null).and(Filter.parse(s.filter(), null)).and(inline);
    }

    /**
     * An inline filter may only narrow: one that names a value the subscription's or the monitor's stored filter does not
     * pass (stored {@code types:["x.a"]}, inline {@code types=x.b}) is refused with the key and that stored filter, where
     * AND-ing it would only have answered nothing. A concrete type under a stored wildcard narrows and is accepted.
     */
    static void requireNarrows(Monitor monitor, Subscription s, Filter inline) {
        if (!inline.isAll()) {
            requireNarrows(s.filter(), "subscription", inline);
            requireNarrows(monitor.filter(), "monitor", inline);
        }
    }

    private static void requireNarrows(com.fasterxml.jackson.databind.JsonNode stored, String storedOn, Filter inline) {
        Filter.Widening w = Filter.parse(stored, null).widening(inline);
        if (w != null) {
            throw ProtocolException.of(ErrorCode.INVALID_FILTER, "inline filter would widen key '" + w.key() + "' ("
                            + String.join(", ", w.outside()) + " outside the " + storedOn + "'s stored filter); it may only narrow")
                    .with("key", w.key())
                    .with("stored", stored)
                    .with("stored_on", storedOn)
                    .with("outside", w.outside());
        }
    }

    static ProtocolException expired(String monitorId, long floor, long requested) {
        return ProtocolException.of(ErrorCode.CURSOR_EXPIRED, "cursor below retention floor; relist from state, then pull from the floor")
                .with("retention_floor", floor)
                .with("relist", "monitors/" + monitorId + "/state")
                .with("requested", requested);
    }

    /** Whether starting at {@code cursor} would miss observations the log no longer holds (seq 0 never existed). */
    static boolean isExpired(long cursor, long floor) {
        return Math.max(cursor, 1) < floor;
    }

    /** How long a subscription may go without pulling before the sweep retires it. */
    static long muteSeconds(Subscription s, Monitor m) {
        if (s.retireAfterMuteSeconds() != null) {
            return s.retireAfterMuteSeconds();
        }
        return m != null && m.retireAfterMuteSeconds() != null ? m.retireAfterMuteSeconds() : Limits.RETIRE_AFTER_MUTE_SECONDS_DEFAULT;
    }
}
