package io.monitorbackbone.gateway.service;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Delivery: pull (with an optional long-poll), ack, and the reads an SSE stream makes. Only ack moves a cursor. */
@ApplicationScoped
public class DeliveryService {
    private final Tables tables;
    private final Log log;
    private final Access access;
    private final Executor work;
    private final Clock clock;
    private final Parking parking;

    @Inject
    public DeliveryService(Tables tables, Log log, Work work, Clock clock, Parking parking) {
        this.parking = parking;
        this.tables = tables;
        this.log = log;
        this.access = new Access(tables, log);
        this.work = work;
        this.clock = clock;
    }

    /** A pull: reads at once; with {@code wait}, parks on the monitor's tail until something arrives or time is up. */
    public CompletableFuture<Reply> pull(String id, String bearer, PullRequest request) {
        Subscription s = access.authorized(id, bearer);
        Monitor monitor = access.monitorOf(s);
        Tables.Tail tail = tables.tail(s.monitor());
        Filter inline = access.filter(request.inlineFilter(), monitor);
        Access.requireNarrows(monitor, s, inline);
        Filter effective = Access.effectiveFilter(monitor, s, inline);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(request.waitSeconds());
        return CompletableFuture.supplyAsync(() -> readOnce(s, effective, request), work)
                .thenCompose(page -> page.entries().isEmpty() && request.waitSeconds() > 0
                        ? parkThenRead(s, effective, request, tail, page, deadline)
                        : CompletableFuture.completedFuture(page))
                .thenApplyAsync(page -> deliver(s, monitor, page, request), work);
    }

    private CompletableFuture<Log.Page> parkThenRead(Subscription s, Filter effective, PullRequest request,
                                                     Tables.Tail tail, Log.Page empty, long deadline) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0 || parking.stopping()) {
            // Time is up, or the process is stopping: the answer is what the pull has, an empty page with its next.
            return CompletableFuture.completedFuture(empty);
        }
        return parking.appendAfter(tail, empty.bounds().head(), Duration.ofNanos(remaining))
                .thenCompose(v -> parking.stopping()
                        ? CompletableFuture.completedFuture(empty)
                        : CompletableFuture.supplyAsync(() -> readOnce(s, effective, request), work)
                                .thenCompose(page -> page.entries().isEmpty()
                                        ? parkThenRead(s, effective, request, tail, page, deadline)
                                        : CompletableFuture.completedFuture(page)));
    }

    /** Where pulls and streams wait; {@link Parking#stop()} wakes them all when the process stops. */
    public Parking parking() {
        return parking;
    }

    private Log.Page readOnce(Subscription s, Filter effective, PullRequest request) {
        long start = request.cursor() != null ? request.cursor() : access.cursorOf(s.id()).cursor();
        Log.Page page = log.read(s.monitor(), start, effective, request.limit(), true);
        if (!Access.isExpired(start, page.bounds().floor())) {
            return page;
        }
        if (request.cursor() != null || "none".equals(s.resetPolicy())) {
            throw Access.expired(s.monitor(), page.bounds().floor(), start);
        }
        long reset = reset(s, page.bounds());
        return log.read(s.monitor(), reset, effective, request.limit(), true);
    }

    /**
     * A cursor below the floor under {@code reset_policy} earliest or latest moves to the floor or past the head, and a
     * {@code bookmark} row marks where the log picks up again: a replay from the floor ends with it.
     */
    private long reset(Subscription s, Log.Bounds bounds) {
        synchronized (tables.lockFor(s.id())) {
            Cursor cursor = access.cursorOf(s.id());
            if (!Access.isExpired(cursor.cursor(), bounds.floor())) {
                return cursor.cursor();
            }
            long target = "earliest".equals(s.resetPolicy()) ? bounds.floor() : bounds.head() + 1;
            Instant now = clock.instant();
            Cursor moved = cursor.acked(target, Times.format(now));
            tables.put(Topics.CURSORS, s.id(), moved);
            tables.apply(s.id(), moved);
            ObjectNode payload = Json.object();
            payload.put("subscription", s.id());
            payload.put("reason", "cursor_expired");
            payload.put("reset_policy", s.resetPolicy());
            payload.put("requested", cursor.cursor());
            payload.put("retention_floor", bounds.floor());
            payload.put("cursor", target);
            Monitor monitor = access.monitorOf(s);
            log.append(s.monitor(), ProtocolRows.row(monitor, Vocabulary.BOOKMARK, SubscriptionService.SWEEP, null, payload, false, now));
            return target;
        }
    }

    private Reply deliver(Subscription s, Monitor monitor, Log.Page page, PullRequest request) {
        Cursor cursor;
        synchronized (tables.lockFor(s.id())) {
            cursor = access.cursorOf(s.id());
            String now = Times.format(clock.instant());
            long newest = page.entries().isEmpty() ? 0 : page.entries().get(page.entries().size() - 1).seq();
            Cursor marked = null;
            // A pull from the cursor hands out what it returns, and so does a replay that starts no further than one
            // past the delivered mark (mp watch reads on from its last NEXT that way): both raise the mark, written
            // before the reply, so a later pull flags exactly what was handed out before. A replay that starts
            // further on leaves the mark alone: raising it there would flag the rows it skipped, never handed out.
            boolean handsOut = request.cursor() == null || request.cursor() <= cursor.delivered() + 1;
            if (handsOut && newest > cursor.delivered()) {
                long fresh = page.entries().stream().filter(e -> !cursor.isRedelivery(e.seq())).count();
                marked = cursor.deliveredUpTo(newest, fresh, now);
            } else if (lastPullIsStale(s, monitor, cursor)) {
                marked = cursor.pulled(now);
            }
            if (marked != null) {
                tables.put(Topics.CURSORS, s.id(), marked);
                tables.apply(s.id(), marked);
            }
        }
        long lag = request.cursor() == null || request.cursor() == cursor.cursor()
                ? page.counted()
                : log.read(s.monitor(), cursor.cursor(), Access.effectiveFilter(monitor, s, Filter.ALL), 0, true).counted();
        ArrayNode observations = Json.MAPPER.createArrayNode();
        int redelivered = 0;
        for (Log.Entry e : page.entries()) {
            boolean again = cursor.isRedelivery(e.seq());
            redelivered += again ? 1 : 0;
            observations.add(e.draft().served(s.monitor(), e.seq(), again));
        }
        ObjectNode reply = Json.object();
        reply.put("subscription", s.id());
        reply.put("monitor", s.monitor());
        reply.put("cursor", cursor.cursor());
        reply.put("head", page.bounds().head());
        reply.put("lag", lag);
        if (page.countBounded()) {
            reply.put("lag_bounded", true);
        }
        reply.put("retention_floor", page.bounds().floor());
        reply.put("next", page.next());
        reply.put("redelivered", redelivered);
        reply.set("observations", observations);
        return new Reply(200, reply, Map.of("X-MP-Batch-Type", "application/cloudevents-batch+json"));
    }

    /**
     * {@code last_pull} is what the mute sweep reads, on whichever gateway runs it, so a pull writes it when the stored
     * one is older than a quarter of the subscription's mute time (at most 30 s): often enough, not on every pull.
     */
    private boolean lastPullIsStale(Subscription s, Monitor monitor, Cursor cursor) {
        Instant last = Times.parseOrNull(cursor.lastPull());
        long budgetMs = Math.min(30_000, Access.muteSeconds(s, monitor) * 250);
        return last == null || clock.instant().isAfter(last.plusMillis(budgetMs));
    }

    public Reply ack(String id, String bearer, ObjectNode body) {
        Subscription s = access.authorized(id, bearer);
        long requested = nonNegative(body.get("cursor"));
        synchronized (tables.lockFor(s.id())) {
            Cursor cursor = access.cursorOf(s.id());
            Log.Bounds bounds = log.bounds(s.monitor());
            if (requested < cursor.cursor()) {
                throw ProtocolException.of(ErrorCode.CURSOR_BACKWARDS, "a cursor does not move backwards; use /seek with a reason")
                        .with("cursor", cursor.cursor()).with("requested", requested).with("head", bounds.head());
            }
            long target = Math.min(requested, bounds.head() + 1);
            if (target > cursor.cursor()) {
                Cursor acked = cursor.acked(target, Times.format(clock.instant()));
                tables.put(Topics.CURSORS, s.id(), acked);
                cursor = tables.apply(s.id(), acked);
            }
            Filter effective = Access.effectiveFilter(access.monitorOf(s), s, Filter.ALL);
            long lag = log.read(s.monitor(), cursor.cursor(), effective, 0, true).counted();
            ObjectNode reply = Json.object();
            reply.put("subscription", s.id());
            reply.put("cursor", cursor.cursor());
            reply.put("head", bounds.head());
            reply.put("lag", lag);
            return Reply.of(200, reply);
        }
    }

    /** What an SSE stream needs: the subscription and where it starts. */
    public record Stream(Subscription subscription, Filter filter, long start, Tables.Tail log) {
    }

    /** Start: {@code Last-Event-ID} + 1 if given, else {@code cursor}, else the committed cursor. */
    public Stream openStream(String id, String bearer, String lastEventId, String cursorParam) {
        Subscription s = access.authorized(id, bearer);
        long start;
        if (lastEventId != null) {
            if (!lastEventId.trim().matches("[0-9]{1,18}")) {
                throw ProtocolException.of(ErrorCode.INVALID, "Last-Event-ID must be an integer");
            }
            start = Long.parseLong(lastEventId.trim()) + 1;
        } else if (cursorParam != null) {
            if (!cursorParam.matches("[0-9]{1,18}")) {
                throw ProtocolException.of(ErrorCode.INVALID, "cursor must be a non-negative integer").with("cursor", null);
            }
            start = Long.parseLong(cursorParam);
        } else {
            start = access.cursorOf(id).cursor();
        }
        Monitor monitor = access.monitorOf(s);
        return new Stream(s, Access.effectiveFilter(monitor, s, Filter.ALL), start, tables.tail(s.monitor()));
    }

    /** One read of a stream: never marks anything delivered and never commits. */
    public Log.Page streamRead(Stream stream, long from, int limit) {
        Log.Page page = log.read(stream.subscription().monitor(), from, stream.filter(), limit, false);
        if (Access.isExpired(from, page.bounds().floor())) {
            throw Access.expired(stream.subscription().monitor(), page.bounds().floor(), from);
        }
        return page;
    }

    public Cursor committed(String subscriptionId) {
        return access.cursorOf(subscriptionId);
    }

    /** A cursor in a body: an integer or a string of digits. */
    static long nonNegative(JsonNode value) {
        if (value != null && value.isIntegralNumber() && value.canConvertToLong() && value.asLong() >= 0) {
            return value.asLong();
        }
        if (value != null && value.isTextual() && value.asText().matches("[0-9]{1,18}")) {
            return Long.parseLong(value.asText());
        }
        throw ProtocolException.of(ErrorCode.INVALID, "cursor must be a non-negative integer").with("cursor", value);
    }
}
