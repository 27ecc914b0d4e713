package io.monitorbackbone.gateway.service;

import io.monitorbackbone.gateway.ServerFault;
import io.monitorbackbone.gateway.kafka.Catalog;
import io.monitorbackbone.gateway.kafka.LogReader;
import io.monitorbackbone.gateway.kafka.LogWriter;
import io.monitorbackbone.gateway.kafka.MonitorLog;
import io.monitorbackbone.gateway.kafka.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.Vocabulary;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Subscriptions: subscribe (and re-key), pull with an optional long-poll, and ack. */
public final class SubscriptionService {
    private final Catalog catalog;
    private final LogReader reader;
    private final LogWriter writer;
    private final Executor work;
    private final Clock clock;

    public SubscriptionService(Catalog catalog, LogReader reader, LogWriter writer, Executor work, Clock clock) {
        this.catalog = catalog;
        this.reader = reader;
        this.writer = writer;
        this.work = work;
        this.clock = clock;
    }

    public Reply subscribe(ObjectNode body, String bearer) {
        String monitorId = Json.text(body, "monitor");
        if (monitorId == null) {
            throw ProtocolException.of(ErrorCode.INVALID, "monitor is required");
        }
        Monitor monitor = catalog.monitor(monitorId);
        if (monitor == null || !monitor.visibleTo(bearer)) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "monitor not found or not visible");
        }
        String subscriber = Json.text(body, "subscriber");
        if (subscriber == null || subscriber.isBlank()) {
            throw ProtocolException.of(ErrorCode.INVALID, "subscriber is required (an actor such as agent:name)");
        }
        List<String> requested = Json.strings(body, "capabilities");
        if (requested == null) {
            requested = List.of("observe");
        }
        String protocol = orElse(Json.text(body, "protocol"), "pull");
        String resetPolicy = orElse(Json.text(body, "reset_policy"), "none");
        new Vocabulary.Check()
                .values("capabilities", requested, Vocabulary.CAPABILITIES)
                .value("protocol", protocol, Vocabulary.PROTOCOLS)
                .value("reset_policy", resetPolicy, Vocabulary.RESET_POLICIES)
                .throwIfAny();

        synchronized (catalog.lockFor(Catalog.readerKey(monitorId, subscriber))) {
            Subscription existing = catalog.subscriptionOf(monitorId, subscriber);
            boolean owner = monitor.ownerIs(bearer);
            if (existing != null && !owner && !existing.tokenIs(bearer)) {
                throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "subscriber '" + subscriber
                                + "' already has a subscription on this monitor; re-subscribing re-keys it and needs its current token or the owner's")
                        .with("subscription", existing.id())
                        .with("existing", true);
            }
            boolean privileged = owner || "shared".equals(monitor.visibility()) && monitor.subscribeTokenIs(bearer);
            List<String> granted = Subscription.grant(monitor, privileged, requested,
                    existing == null ? List.of() : existing.capabilities());
            JsonNode filter = body.get("filter");
            if (filter == null || filter.isNull()) {
                filter = Json.object();
            }
            MonitorLog log = catalog.log(monitorId);
            Filter.parse(filter, Filter.knownTypes(monitor.types(), log.seenTypes()));
            Long retireAfterMute = seconds(body, "retire_after_mute_seconds");

            Instant now = clock.instant();
            String at = Times.format(now);
            LogReader.Bounds bounds = reader.bounds(monitorId);
            Cursor previous = existing == null ? null : catalog.cursor(existing.id());
            long from = startCursor(body.get("from"), bounds, previous);

            String token = Tokens.mint();
            String id = existing != null ? existing.id() : freshId();
            Subscription subscription = new Subscription(id, monitorId, subscriber, filter, granted, resetPolicy, protocol,
                    Json.text(body, "sink"), retireAfterMute, existing != null ? existing.created() : at, true, Tokens.hash(token));
            Cursor cursor = previous == null ? Cursor.start(from, at) : previous.acked(from, at);

            // The cursor first: a subscription whose definition landed without its cursor could never be pulled.
            writer.put(Topics.CURSORS, id, cursor);
            cursor = catalog.apply(id, cursor);
            writer.put(Topics.SUBSCRIPTIONS, id, subscription);
            catalog.apply(subscription);

            ObjectNode payload = Json.object();
            payload.put("subscription", id);
            payload.put("subscriber", subscriber);
            payload.set("filter", filter);
            payload.set("capabilities", Json.array(granted));
            payload.put("cursor", cursor.cursor());
            payload.put("renewed", existing != null);
            boolean humanVouched = owner && monitor.attested() && subscriber.equals(monitor.owner());
            writer.append(monitorId, ProtocolRows.row(monitor, Vocabulary.SUBSCRIBED, subscriber, null, payload, humanVouched, now));

            Filter effective = effectiveFilter(monitor, subscription, Filter.ALL);
            long lag = reader.read(monitorId, cursor.cursor(), effective, 0, true).counted();
            ObjectNode reply = Json.object();
            reply.set("subscription", subscription.served(cursor, lag));
            reply.put("token", token);
            reply.put("notice", "the token is shown once");
            return Reply.of(201, reply);
        }
    }

    /** Where a subscription starts: {@code head}, {@code earliest}, a seq, or (re-keying) where it already was. */
    private static long startCursor(JsonNode from, LogReader.Bounds bounds, Cursor previous) {
        long current = previous == null ? 0 : previous.cursor();
        if (from == null || from.isNull()) {
            return current;
        }
        long wanted;
        if (from.isTextual() && from.asText().equals("head")) {
            wanted = bounds.head() + 1;
        } else if (from.isTextual() && from.asText().equals("earliest")) {
            wanted = bounds.floor();
        } else if (from.isIntegralNumber() && from.canConvertToLong() && from.asLong() >= 0) {
            wanted = from.asLong();
        } else {
            throw ProtocolException.of(ErrorCode.INVALID, "`from` must be 'head', 'earliest' or a non-negative integer")
                    .with("from", from);
        }
        if (previous != null && wanted < current) {
            throw ProtocolException.of(ErrorCode.CURSOR_BACKWARDS, "a cursor does not move backwards; use /seek with a reason")
                    .with("cursor", current).with("requested", wanted);
        }
        return wanted;
    }

    private String freshId() {
        String id;
        do {
            id = "sub-" + Tokens.hex(4);
        } while (catalog.subscription(id) != null);
        return id;
    }

    /** A pull: reads at once; with {@code wait}, parks on the monitor's tail until something arrives or time is up. */
    public CompletableFuture<Reply> pull(String id, String bearer, PullRequest request) {
        Subscription s = authorized(id, bearer);
        Monitor monitor = catalog.monitor(s.monitor());
        MonitorLog log = catalog.log(s.monitor());
        Filter inline = Filter.parse(request.inlineFilter(), Filter.knownTypes(monitor.types(), log.seenTypes()));
        Filter effective = effectiveFilter(monitor, s, inline);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(request.waitSeconds());
        return CompletableFuture.supplyAsync(() -> readOnce(s, effective, request), work)
                .thenCompose(page -> page.entries().isEmpty() && request.waitSeconds() > 0
                        ? parkThenRead(s, effective, request, log, page, deadline)
                        : CompletableFuture.completedFuture(page))
                .thenApplyAsync(page -> deliver(s, page, request), work);
    }

    private CompletableFuture<LogReader.Page> parkThenRead(Subscription s, Filter effective, PullRequest request,
                                                          MonitorLog log, LogReader.Page empty, long deadline) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            return CompletableFuture.completedFuture(empty);
        }
        CompletableFuture<Void> signal = log.nextAppend();
        if (log.lastSeq() <= empty.bounds().head()) {
            signal = signal.copy().completeOnTimeout(null, remaining, TimeUnit.NANOSECONDS);
        } else {
            signal = CompletableFuture.completedFuture(null);
        }
        return signal.thenApplyAsync(v -> readOnce(s, effective, request), work)
                .thenCompose(page -> page.entries().isEmpty()
                        ? parkThenRead(s, effective, request, log, page, deadline)
                        : CompletableFuture.completedFuture(page));
    }

    private LogReader.Page readOnce(Subscription s, Filter effective, PullRequest request) {
        long start = request.cursor() != null ? request.cursor() : cursorOf(s.id()).cursor();
        LogReader.Page page = reader.read(s.monitor(), start, effective, request.limit(), true);
        if (Math.max(start, 1) < page.bounds().floor() && page.bounds().floor() > 1) {
            throw expired(s.monitor(), page.bounds().floor(), start);
        }
        return page;
    }

    private Reply deliver(Subscription s, LogReader.Page page, PullRequest request) {
        Cursor cursor;
        synchronized (catalog.lockFor(s.id())) {
            cursor = cursorOf(s.id());
            long newest = page.entries().isEmpty() ? 0 : page.entries().get(page.entries().size() - 1).seq();
            if (request.cursor() == null && newest > cursor.delivered()) {
                long fresh = page.entries().stream().filter(e -> !cursor.isRedelivery(e.seq())).count();
                Cursor marked = cursor.deliveredUpTo(newest, fresh, Times.format(clock.instant()));
                writer.put(Topics.CURSORS, s.id(), marked);
                catalog.apply(s.id(), marked);
            }
        }
        long lag = request.cursor() == null || request.cursor() == cursor.cursor()
                ? page.counted()
                : reader.read(s.monitor(), cursor.cursor(), effectiveFilter(catalog.monitor(s.monitor()), s,
                Filter.ALL), 0, true).counted();
        ArrayNode observations = Json.MAPPER.createArrayNode();
        int redelivered = 0;
        for (LogReader.Entry e : page.entries()) {
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
        return new Reply(200, reply, java.util.Map.of("X-MP-Batch-Type", "application/cloudevents-batch+json"));
    }

    public Reply ack(String id, String bearer, ObjectNode body) {
        Subscription s = authorized(id, bearer);
        long requested = nonNegative(body.get("cursor"));
        synchronized (catalog.lockFor(s.id())) {
            Cursor cursor = cursorOf(s.id());
            LogReader.Bounds bounds = reader.bounds(s.monitor());
            if (requested < cursor.cursor()) {
                throw ProtocolException.of(ErrorCode.CURSOR_BACKWARDS, "a cursor does not move backwards; use /seek with a reason")
                        .with("cursor", cursor.cursor()).with("requested", requested).with("head", bounds.head());
            }
            long target = Math.min(requested, bounds.head() + 1);
            if (target > cursor.cursor()) {
                Cursor acked = cursor.acked(target, Times.format(clock.instant()));
                writer.put(Topics.CURSORS, s.id(), acked);
                cursor = catalog.apply(s.id(), acked);
            }
            Filter effective = effectiveFilter(catalog.monitor(s.monitor()), s, Filter.ALL);
            long lag = reader.read(s.monitor(), cursor.cursor(), effective, 0, true).counted();
            ObjectNode reply = Json.object();
            reply.put("subscription", s.id());
            reply.put("cursor", cursor.cursor());
            reply.put("head", bounds.head());
            reply.put("lag", lag);
            return Reply.of(200, reply);
        }
    }

    private Subscription authorized(String id, String bearer) {
        Subscription s = catalog.subscription(id);
        if (s == null) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "subscription not found");
        }
        if (!s.tokenIs(bearer)) {
            throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "bearer token missing or invalid");
        }
        if (!s.active()) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "subscription retired; re-subscribe to reactivate (cursor kept)")
                    .with("retired", true).with("cursor", cursorOf(id).cursor());
        }
        return s;
    }

    /** Another replica may have written the subscription a moment before its cursor reached this one's view. */
    private Cursor cursorOf(String subscriptionId) {
        Cursor c = catalog.cursor(subscriptionId);
        if (c == null) {
            throw new ServerFault("this gateway has not yet read the subscription's cursor; retry", null);
        }
        return c;
    }

    private static Filter effectiveFilter(Monitor monitor, Subscription s, Filter inline) {
        return Filter.parse(monitor.filter(), null).and(Filter.parse(s.filter(), null)).and(inline);
    }

    static ProtocolException expired(String monitorId, long floor, long requested) {
        return ProtocolException.of(ErrorCode.CURSOR_EXPIRED, "cursor below retention floor; relist from state, then pull from the floor")
                .with("retention_floor", floor)
                .with("relist", "monitors/" + monitorId + "/state")
                .with("requested", requested);
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

    private static Long seconds(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be a non-negative integer").with("field", field);
        }
        return v.asLong();
    }

    private static String orElse(String v, String fallback) {
        return v != null ? v : fallback;
    }
}
