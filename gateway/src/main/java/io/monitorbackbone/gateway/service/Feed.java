package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Subscription;
import java.util.function.LongSupplier;

/**
 * One pull's, SSE stream's or lag count's view of a subscription, opened once per request by {@link Feeds}: the
 * subscription the bearer holds the token of, its monitor, the filters (the monitor's and the subscription's parsed
 * once, an inline one checked to only narrow them) and the log it reads. Pull, stream and lag all read through it;
 * the committed cursor is read from the tables when asked, since an ack may land while a pull is parked.
 */
public final class Feed {
    /** What a start below the retention floor does. */
    enum Expiry {
        /** Nothing is missed: read. */
        READ,
        /** Refused with CURSOR_EXPIRED: a replay names its start, and {@code reset_policy: none} never moves it. */
        REFUSE,
        /** The cursor moves to the floor ({@code earliest}) or past the head ({@code latest}). */
        RESET
    }

    private final Subscription subscription;
    private final Monitor monitor;
    private final Filter stored;
    private final Filter filter;
    private final java.util.function.Supplier<Tables.Tail> tail;
    private final Log log;
    private final Access access;

    Feed(
            Subscription subscription,
            Monitor monitor,
            Filter stored,
            Filter filter,
            java.util.function.Supplier<Tables.Tail> tail,
            Log log,
            Access access) {
        this.subscription = subscription;
        this.monitor = monitor;
        this.stored = stored;
        this.filter = filter;
        this.tail = tail;
        this.log = log;
        this.access = access;
    }

    public Subscription subscription() {
        return subscription;
    }

    public Monitor monitor() {
        return monitor;
    }

    /** The monitor's tail, where a parked pull or an idle stream waits for an append. */
    public Tables.Tail tail() {
        return tail.get();
    }

    /** The effective filter: the monitor's, the subscription's and the inline one, AND-ed. */
    Filter filter() {
        return filter;
    }

    /** The subscription's cursor as the cluster last acknowledged it. */
    public Cursor committed() {
        return access.cursorOf(subscription.id());
    }

    /** A page from {@code from} through the effective filter; with {@code count}, what matches on to the head. */
    Log.Page read(long from, int limit, boolean count) {
        return log.read(subscription.monitor(), from, filter, limit, count);
    }

    /** Observations from {@code cursor} to the head that the stored filters pass: the subscription's lag. */
    long lag(long cursor) {
        return log.read(subscription.monitor(), cursor, stored, 0, true).counted();
    }

    /** {@link #lag(long)} up to the head of bounds this request has just read. */
    long lag(long cursor, Log.Bounds bounds) {
        return log.count(subscription.monitor(), cursor, stored, bounds).counted();
    }

    /** One read of a stream: never counts, never marks anything delivered, never commits; refused below the floor. */
    public Log.Page stream(long from, int limit) {
        Log.Page page = log.read(subscription.monitor(), from, filter, limit, false);
        if (isExpired(from, page.bounds().floor())) {
            throw expired(subscription.monitor(), page.bounds().floor(), from);
        }
        return page;
    }

    /** The monitor's filter and the subscription's, then an inline one: AND-ed, so each can only narrow. */
    static Filter effective(Filter monitorFilter, Filter subscriptionFilter, Filter inline) {
        return monitorFilter.and(subscriptionFilter).and(inline);
    }

    /**
     * An inline filter may only narrow: one that names a value the subscription's or the monitor's stored filter does not
     * pass (stored {@code types:["x.a"]}, inline {@code types=x.b}) is refused with the key and that stored filter, where
     * AND-ing it would only have answered nothing. A concrete type under a stored wildcard narrows and is accepted.
     *
     * @param subscriptionStored the subscription's filter as stored, {@code subscriptionFilter} parsed from it
     * @param monitorStored      the monitor's filter as stored, {@code monitorFilter} parsed from it
     */
    static void requireNarrows(
            Filter inline,
            JsonNode subscriptionStored,
            Filter subscriptionFilter,
            JsonNode monitorStored,
            Filter monitorFilter) {
        if (!inline.isAll()) {
            requireNarrows(inline, subscriptionStored, subscriptionFilter, "subscription");
            requireNarrows(inline, monitorStored, monitorFilter, "monitor");
        }
    }

    private static void requireNarrows(Filter inline, JsonNode stored, Filter parsed, String storedOn) {
        Filter.Widening w = parsed.widening(inline);
        if (w != null) {
            throw ProtocolException.of(
                            ErrorCode.INVALID_FILTER,
                            "inline filter would widen key '" + w.key() + "' (" + String.join(", ", w.outside())
                                    + " outside the " + storedOn + "'s stored filter); it may only narrow")
                    .with("key", w.key())
                    .with("stored", stored)
                    .with("stored_on", storedOn)
                    .with("outside", w.outside());
        }
    }

    /** Where a pull reads from: the replay start it names, else the committed cursor. */
    static long start(Long replayFrom, LongSupplier committed) {
        return replayFrom != null ? replayFrom : committed.getAsLong();
    }

    /**
     * Where a stream starts: {@code Last-Event-ID} + 1 if given, else the {@code cursor} parameter, else the committed
     * cursor; each given one must be an integer.
     */
    static long streamStart(String lastEventId, String cursorParam, LongSupplier committed) {
        if (lastEventId != null) {
            if (!lastEventId.trim().matches("[0-9]{1,18}")) {
                throw ProtocolException.of(ErrorCode.INVALID, "Last-Event-ID must be an integer");
            }
            return Long.parseLong(lastEventId.trim()) + 1;
        }
        if (cursorParam != null) {
            if (!cursorParam.matches("[0-9]{1,18}")) {
                throw ProtocolException.of(ErrorCode.INVALID, "cursor must be a non-negative integer")
                        .with("cursor", null);
            }
            return Long.parseLong(cursorParam);
        }
        return committed.getAsLong();
    }

    /** Whether starting at {@code cursor} would miss observations the log no longer holds (seq 0 never existed). */
    static boolean isExpired(long cursor, long floor) {
        return Math.max(cursor, 1) < floor;
    }

    /** What a pull starting at {@code start} does about the floor: a replay is refused, a pull from the cursor resets unless its policy is none. */
    static Expiry expiry(long start, long floor, boolean replay, String resetPolicy) {
        if (!isExpired(start, floor)) {
            return Expiry.READ;
        }
        return replay || "none".equals(resetPolicy) ? Expiry.REFUSE : Expiry.RESET;
    }

    /** Where an expired cursor moves: the floor under {@code earliest}, one past the head under {@code latest}. */
    static long resetTarget(String resetPolicy, Log.Bounds bounds) {
        return "earliest".equals(resetPolicy) ? bounds.floor() : bounds.head() + 1;
    }

    /** A seek to a time before what the log still holds: {@link #expired} naming the time instead of a seq. */
    static ProtocolException expired(String monitorId, long floor, java.time.Instant time) {
        return ProtocolException.of(
                        ErrorCode.CURSOR_EXPIRED,
                        "time before the retention floor: what was appended from then on may be gone; seek to the floor"
                                + " (retention_floor) to read what the log still holds")
                .with("retention_floor", floor)
                .with("relist", "monitors/" + monitorId + "/state")
                .with("time", time.toString());
    }

    static ProtocolException expired(String monitorId, long floor, long requested) {
        return ProtocolException.of(
                        ErrorCode.CURSOR_EXPIRED,
                        "cursor below retention floor; relist from state, then pull from the floor")
                .with("retention_floor", floor)
                .with("relist", "monitors/" + monitorId + "/state")
                .with("requested", requested);
    }
}
