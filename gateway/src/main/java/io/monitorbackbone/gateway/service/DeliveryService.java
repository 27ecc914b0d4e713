package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.request.Ack;
import io.monitorbackbone.protocol.request.Pull;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Delivery: pull (with an optional long-poll), ack, and the reads an SSE stream makes, each through the subscription's
 * {@link Feed} opened once per request. Only ack moves a cursor.
 */
@ApplicationScoped
public class DeliveryService {
    private final Tables tables;
    private final Log log;
    private final Feeds feeds;
    private final Executor work;
    private final Clock clock;
    private final Parking parking;
    private Metrics metrics = Metrics.none();

    @Inject
    public DeliveryService(Tables tables, Log log, Work work, Clock clock, Parking parking) {
        this.parking = parking;
        this.tables = tables;
        this.log = log;
        this.feeds = new Feeds(tables, log, new Access(tables, log));
        this.work = work;
        this.clock = clock;
    }

    @Inject
    void metrics(Metrics metrics) {
        this.metrics = metrics;
    }

    /**
     * A pull: opens the subscription's feed once, reads at once; with {@code wait}, parks on the monitor's tail until
     * something arrives or time is up.
     */
    public CompletableFuture<Reply> pull(String id, String bearer, Pull request) {
        long start = metrics.start();
        Feed feed = feeds.open(id, bearer, request.inlineFilter());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(request.waitSeconds());
        return CompletableFuture.supplyAsync(() -> readOnce(feed, request), work)
                .thenCompose(page -> page.entries().isEmpty() && request.waitSeconds() > 0
                        ? parkThenRead(feed, request, page, deadline)
                        : CompletableFuture.completedFuture(page))
                .thenApplyAsync(page -> deliver(feed, page, request), work)
                .whenComplete((reply, failure) -> {
                    if (failure == null) {
                        metrics.pulled(start);
                    }
                });
    }

    private CompletableFuture<Log.Page> parkThenRead(Feed feed, Pull request, Log.Page empty, long deadline) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0 || parking.stopping()) {
            // Time is up, or the process is stopping: the answer is what the pull has, an empty page with its next.
            return CompletableFuture.completedFuture(empty);
        }
        return parking.appendAfter(feed.tail(), empty.bounds().head(), Duration.ofNanos(remaining))
                .thenCompose(v -> parking.stopping()
                        ? CompletableFuture.completedFuture(empty)
                        : CompletableFuture.supplyAsync(() -> readOnce(feed, request), work)
                                .thenCompose(page -> page.entries().isEmpty()
                                        ? parkThenRead(feed, request, page, deadline)
                                        : CompletableFuture.completedFuture(page)));
    }

    /** Where pulls and streams wait; {@link Parking#stop()} wakes them all when the process stops. */
    public Parking parking() {
        return parking;
    }

    private Log.Page readOnce(Feed feed, Pull request) {
        Subscription s = feed.subscription();
        long start = Feed.start(request.cursor(), () -> feed.committed().cursor());
        Log.Page page = feed.read(start, request.limit(), true);
        return switch (Feed.expiry(start, page.bounds().floor(), request.cursor() != null, s.resetPolicy())) {
            case READ -> page;
            case REFUSE -> throw Feed.expired(s.monitor(), page.bounds().floor(), start);
            case RESET -> feed.read(reset(feed, page.bounds()), request.limit(), true);
        };
    }

    /**
     * A cursor below the floor under {@code reset_policy} earliest or latest moves to the floor or past the head, and a
     * {@code bookmark} row marks where the log picks up again: a replay from the floor ends with it.
     */
    private long reset(Feed feed, Log.Bounds bounds) {
        Subscription s = feed.subscription();
        synchronized (tables.lockFor(s.id())) {
            Cursor cursor = feed.committed();
            if (!Feed.isExpired(cursor.cursor(), bounds.floor())) {
                return cursor.cursor();
            }
            long target = Feed.resetTarget(s.resetPolicy(), bounds);
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
            log.append(
                    s.monitor(),
                    ProtocolRows.row(
                            feed.monitor(), Vocabulary.BOOKMARK, SubscriptionService.SWEEP, null, payload, false, now));
            return target;
        }
    }

    private Reply deliver(Feed feed, Log.Page page, Pull request) {
        Subscription s = feed.subscription();
        Monitor monitor = feed.monitor();
        Cursor cursor;
        synchronized (tables.lockFor(s.id())) {
            cursor = feed.committed();
            String now = Times.format(clock.instant());
            long newest = page.entries().isEmpty()
                    ? 0
                    : page.entries().get(page.entries().size() - 1).seq();
            Cursor marked = null;
            // A pull from the cursor hands out what it returns, and so does a replay that starts no further than one
            // past the delivered mark (mp watch reads on from its last NEXT that way): both raise the mark, written
            // before the reply, so a later pull flags exactly what was handed out before. A replay that starts
            // further on leaves the mark alone: raising it there would flag the rows it skipped, never handed out.
            boolean handsOut = request.cursor() == null || request.cursor() <= cursor.delivered() + 1;
            if (handsOut && newest > cursor.delivered()) {
                long fresh = page.entries().stream()
                        .filter(e -> !cursor.isRedelivery(e.seq()))
                        .count();
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
                : feed.lag(cursor.cursor());
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

    public Reply ack(String id, String bearer, Ack request) {
        Feed feed = feeds.open(id, bearer, null);
        Subscription s = feed.subscription();
        long requested = request.cursor();
        synchronized (tables.lockFor(s.id())) {
            Cursor cursor = feed.committed();
            Log.Bounds bounds = log.bounds(s.monitor());
            if (requested < cursor.cursor()) {
                throw ProtocolException.cursorBackwards(cursor.cursor(), requested)
                        .with("head", bounds.head());
            }
            cursor = commit(s.id(), cursor, Math.min(requested, bounds.head() + 1));
            // Counted to the head this reply reports, with the bounds read above.
            long lag = feed.lag(cursor.cursor(), bounds);
            ObjectNode reply = Json.object();
            reply.put("subscription", s.id());
            reply.put("cursor", cursor.cursor());
            reply.put("head", bounds.head());
            reply.put("lag", lag);
            metrics.acked();
            return Reply.of(200, reply);
        }
    }

    /**
     * The one way an ack and a push move a cursor forwards: to {@code target} when it is past the committed one,
     * written to the cursor table and acknowledged before this returns. Call under the subscription's lock.
     */
    private Cursor commit(String subscriptionId, Cursor cursor, long target) {
        if (target <= cursor.cursor()) {
            return cursor;
        }
        Cursor acked = cursor.acked(target, Times.format(clock.instant()));
        tables.put(Topics.CURSORS, subscriptionId, acked);
        return tables.apply(subscriptionId, acked);
    }

    /**
     * The pusher's ack: a receiver answered 2xx for everything before {@code target} (or it was dead-lettered). Never
     * moves a cursor backwards, and goes through the ack's own write.
     */
    public Cursor pushed(Subscription s, long target) {
        synchronized (tables.lockFor(s.id())) {
            Cursor cursor = tables.cursor(s.id());
            if (cursor == null) {
                return null;
            }
            return commit(
                    s.id(), cursor, Math.min(target, log.bounds(s.monitor()).head() + 1));
        }
    }

    /** What an SSE stream reads through: the subscription's feed, and where it starts. */
    public record Stream(Feed feed, long start) {
        public Subscription subscription() {
            return feed.subscription();
        }

        public Tables.Tail log() {
            return feed.tail();
        }

        /** One read of the stream from {@code from}: never marks anything delivered and never commits. */
        public Log.Page read(long from, int limit) {
            return feed.stream(from, limit);
        }

        public Cursor committed() {
            return feed.committed();
        }
    }

    /** Opens the feed once; the stream starts at {@code Last-Event-ID} + 1 if given, else {@code cursor}, else the committed cursor. */
    public Stream openStream(String id, String bearer, String lastEventId, String cursorParam) {
        Feed feed = feeds.open(id, bearer, null);
        return new Stream(
                feed,
                Feed.streamStart(
                        lastEventId, cursorParam, () -> feed.committed().cursor()));
    }
}
