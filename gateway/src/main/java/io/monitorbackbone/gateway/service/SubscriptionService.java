package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.Webhooks;
import io.monitorbackbone.protocol.request.RetireSubscription;
import io.monitorbackbone.protocol.request.Seek;
import io.monitorbackbone.protocol.request.Subscribe;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/** A subscription's life: subscribe (and re-key), seek, renew, retire, and retirement by the mute sweep. */
@ApplicationScoped
public class SubscriptionService {
    public static final String SWEEP = "system:sweep";

    private final Tables tables;
    private final Log log;
    private final Access access;
    private final Feeds feeds;
    private final LeaseService leases;
    private final Clock clock;
    private PushSettings push = PushSettings.DEFAULT;

    @Inject
    public SubscriptionService(Tables tables, Log log, LeaseService leases, Clock clock) {
        this.tables = tables;
        this.log = log;
        this.access = new Access(tables, log);
        this.feeds = new Feeds(tables, log, access);
        this.leases = leases;
        this.clock = clock;
    }

    @Inject
    void push(PushSettings push) {
        this.push = push;
    }

    public Reply subscribe(Subscribe request, String bearer) {
        String monitorId = request.monitor();
        Monitor monitor = access.visibleMonitor(monitorId, bearer, "monitor not found or not visible");
        boolean pushes = "http".equals(request.protocol());
        if (pushes) {
            push.checkSink(request.sink());
        }
        String subscriber = request.subscriber();
        List<String> requested = request.capabilities();

        tables.catchUp(Topics.SUBSCRIPTIONS);
        tables.catchUp(Topics.CURSORS);
        synchronized (tables.lockFor(Tables.readerKey(monitorId, subscriber))) {
            Subscription existing = tables.subscriptionOf(monitorId, subscriber);
            boolean owner = monitor.ownerIs(bearer);
            if (existing != null && !owner && !existing.tokenIs(bearer)) {
                throw ProtocolException.of(
                                ErrorCode.UNAUTHORIZED,
                                "subscriber '" + subscriber
                                        + "' already has a subscription on this monitor; re-subscribing re-keys it and needs its current token or the owner's")
                        .with("subscription", existing.id())
                        .with("existing", true);
            }
            boolean privileged = owner || "shared".equals(monitor.visibility()) && monitor.subscribeTokenIs(bearer);
            List<String> granted = Subscription.grant(
                    monitor, privileged, requested, existing == null ? List.of() : existing.capabilities());
            JsonNode filter = request.filter();
            access.filter(filter, monitor);

            Instant now = clock.instant();
            String at = Times.format(now);
            Log.Bounds bounds = log.bounds(monitorId);
            Cursor previous = existing == null ? null : access.cursorOf(existing.id());
            long from = startCursor(monitorId, request.from(), bounds, previous);

            String token = Tokens.mint();
            // A push subscription signs with a secret of its own, minted at each subscribe and shown once.
            String secret = pushes ? Webhooks.mintSecret() : null;
            String id = existing != null ? existing.id() : freshId();
            Subscription subscription = new Subscription(
                    id,
                    monitorId,
                    subscriber,
                    filter,
                    granted,
                    request.resetPolicy(),
                    request.protocol(),
                    request.sink(),
                    request.retireAfterMuteSeconds(),
                    existing != null ? existing.created() : at,
                    true,
                    Tokens.hash(token),
                    secret,
                    null);
            Cursor cursor = previous == null ? Cursor.start(from, at) : previous.acked(from, at);

            // The cursor first: a subscription whose definition landed without its cursor could never be pulled.
            tables.put(Topics.CURSORS, id, cursor);
            cursor = tables.apply(id, cursor);
            tables.put(Topics.SUBSCRIPTIONS, id, subscription);
            tables.apply(subscription);

            ObjectNode payload = Json.object();
            payload.put("subscription", id);
            payload.put("subscriber", subscriber);
            payload.set("filter", filter);
            payload.set("capabilities", Json.array(granted));
            payload.put("cursor", cursor.cursor());
            payload.put("renewed", existing != null);
            if (request.from() != null && request.from().byTime()) {
                payload.putObject("from").put("time", request.from().time().toString());
            }
            appendRow(
                    monitor,
                    Vocabulary.SUBSCRIBED,
                    subscriber,
                    payload,
                    owner && subscriber.equals(monitor.owner()),
                    now);

            ObjectNode reply = Json.object();
            reply.set("subscription", subscription.served(cursor, lag(monitor, subscription, cursor)));
            reply.put("token", token);
            if (secret != null) {
                reply.put("push_secret", secret);
            }
            reply.put(
                    "notice",
                    secret != null ? "the token and the push secret are shown once" : "the token is shown once");
            return Reply.of(201, reply);
        }
    }

    /**
     * The only way backwards (and a way forwards): needs a reason, bumps the cursor's epoch, and is logged. A seek by
     * time goes to the first record appended at or after it ({@link #seqAt}); one before what the log still holds is
     * refused as a seek below the floor is.
     */
    public Reply seek(String id, String bearer, Seek request) {
        Subscription s = access.authorized(id, bearer);
        String reason = request.reason();
        Monitor monitor = access.monitorOf(s);
        synchronized (tables.lockFor(id)) {
            Cursor cursor = access.cursorOf(id);
            Log.Bounds bounds = log.bounds(s.monitor());
            long requested = request.cursor();
            if (request.byTime()) {
                long at = seqAt(s.monitor(), request.time(), bounds);
                if (at == EXPIRED) {
                    throw Feed.expired(s.monitor(), bounds.floor(), request.time());
                }
                requested = at;
            }
            if (Feed.isExpired(requested, bounds.floor())) {
                throw Feed.expired(s.monitor(), bounds.floor(), requested);
            }
            long target = Math.min(requested, bounds.head() + 1);
            Instant now = clock.instant();
            Cursor moved = cursor.seeked(target, Times.format(now));
            tables.put(Topics.CURSORS, id, moved);
            tables.apply(id, moved);
            ObjectNode payload = Json.object();
            payload.put("subscription", id);
            payload.put("subscriber", s.subscriber());
            ObjectNode seek = payload.putObject("seek");
            seek.put("from", cursor.cursor());
            seek.put("to", target);
            if (request.byTime()) {
                seek.put("time", request.time().toString());
            }
            payload.put("reason", reason);
            appendRow(monitor, Vocabulary.SUBSCRIBED, s.subscriber(), payload, false, now);
            if (Feed.isExpired(cursor.cursor(), bounds.floor())) {
                // A relist: the reader lost observations to retention and starts again; its replay ends here.
                ObjectNode bookmark = Json.object();
                bookmark.put("subscription", id);
                bookmark.put("reason", "relist");
                bookmark.put("requested", cursor.cursor());
                bookmark.put("retention_floor", bounds.floor());
                bookmark.put("cursor", target);
                appendRow(monitor, Vocabulary.BOOKMARK, SWEEP, bookmark, false, now);
            }
            ObjectNode reply = Json.object();
            reply.put("subscription", id);
            reply.put("cursor", target);
            if (request.byTime()) {
                reply.put("time", request.time().toString());
            }
            return Reply.of(200, reply);
        }
    }

    /** A new token; the old one stops working at once. */
    public Reply renew(String id, String bearer) {
        Subscription s = access.authorized(id, bearer);
        Monitor monitor = access.monitorOf(s);
        synchronized (tables.lockFor(Tables.readerKey(s.monitor(), s.subscriber()))) {
            s = access.current(id, bearer);
            String token = Tokens.mint();
            Subscription renewed = s.rekeyed(Tokens.hash(token));
            tables.put(Topics.SUBSCRIPTIONS, id, renewed);
            tables.apply(renewed);
            Instant now = clock.instant();
            Cursor cursor = access.cursorOf(id).pulled(Times.format(now));
            tables.put(Topics.CURSORS, id, cursor);
            cursor = tables.apply(id, cursor);
            ObjectNode payload = Json.object();
            payload.put("subscription", id);
            payload.put("subscriber", s.subscriber());
            payload.put("cursor", cursor.cursor());
            payload.put("renewed", true);
            payload.put("token_rotated", true);
            appendRow(monitor, Vocabulary.SUBSCRIBED, s.subscriber(), payload, false, now);
            ObjectNode reply = Json.object();
            reply.set("subscription", renewed.served(cursor, lag(monitor, renewed, cursor)));
            reply.put("token", token);
            return Reply.of(200, reply);
        }
    }

    public Reply retire(String id, String bearer, RetireSubscription request) {
        Subscription s = access.authorized(id, bearer);
        long seq = retire(s, bearer, s.subscriber(), request.reason(), null);
        ObjectNode reply = Json.object();
        reply.put("ok", true);
        reply.put("subscription", id);
        reply.put("seq", seq);
        reply.put("cursor_kept", access.cursorOf(id).cursor());
        return Reply.of(200, reply);
    }

    /**
     * Retires a subscription that has not pulled within its mute time. Returns false when, checked again under the
     * subscription's lock, it is no longer due (it pulled, or it is retired already).
     */
    public boolean retireIfMuted(String id, Instant now) {
        Subscription s = tables.subscription(id);
        Cursor cursor = tables.cursor(id);
        if (s == null || !s.active() || cursor == null) {
            return false;
        }
        long ttl = Access.muteSeconds(s, tables.monitor(s.monitor()));
        Instant reference = Times.parseOrNull(cursor.lastPull() != null ? cursor.lastPull() : s.created());
        if (reference == null || !now.isAfter(reference.plusSeconds(ttl))) {
            return false;
        }
        // Due by this view; a pull on another gateway may have landed a moment ago.
        tables.catchUp(Topics.CURSORS);
        tables.catchUp(Topics.SUBSCRIPTIONS);
        s = tables.subscription(id);
        reference = Times.parseOrNull(
                tables.cursor(id).lastPull() != null ? tables.cursor(id).lastPull() : s.created());
        if (!s.active() || !now.isAfter(reference.plusSeconds(ttl))) {
            return false;
        }
        ObjectNode will = Json.object();
        will.put("mute_since", Times.format(reference));
        will.put("retire_after_mute_seconds", ttl);
        retire(s, null, SWEEP, "mute", will);
        return true;
    }

    /** @param bearer the token the retiring reader holds, checked again on the current record; null for the sweep */
    private long retire(Subscription s, String bearer, String actor, String reason, ObjectNode extra) {
        synchronized (tables.lockFor(Tables.readerKey(s.monitor(), s.subscriber()))) {
            // The sweep caught up with the table just before deciding; a reader's retire does it here.
            Subscription current = bearer == null ? tables.subscription(s.id()) : access.current(s.id(), bearer);
            Subscription retired = current.retired();
            tables.put(Topics.SUBSCRIPTIONS, s.id(), retired);
            tables.apply(retired);
            ObjectNode payload = Json.object();
            payload.put("subscription", s.id());
            payload.put("subscriber", s.subscriber());
            payload.put("reason", reason);
            payload.put("cursor", access.cursorOf(s.id()).cursor());
            if (extra == null) {
                payload.putNull("mute_since");
            } else {
                payload.setAll(extra);
            }
            long seq = appendRow(
                    access.monitorOf(s), Vocabulary.SUBSCRIPTION_RETIRED, actor, payload, false, clock.instant());
            leases.releaseHeldBy(access.monitorOf(current), List.of(current), "subscription retired: " + reason);
            return seq;
        }
    }

    private long appendRow(
            Monitor monitor, String type, String actor, ObjectNode payload, boolean vouched, Instant now) {
        return log.append(
                monitor.id(),
                ProtocolRows.row(monitor, type, actor, null, payload, vouched && monitor.attested(), now));
    }

    private long lag(Monitor monitor, Subscription s, Cursor cursor) {
        return feeds.of(s, monitor).lag(cursor.cursor());
    }

    /** {@link #seqAt}'s answer for a time before what the log still holds. */
    private static final long EXPIRED = -1;

    /**
     * Where a time lands in a monitor's log: the seq of the first record appended at or after it (by the record
     * timestamp Kafka indexes), one past the head when none is that late. {@link #EXPIRED} when records were removed
     * (the floor is past seq 1) and the time is before the first one retained: what was appended from then on may be
     * gone, so a cursor there is below the floor.
     */
    private long seqAt(String monitorId, Instant time, Log.Bounds bounds) {
        Log.Stamped first = log.firstAtOrAfter(monitorId, time);
        if (first == null) {
            return bounds.head() + 1;
        }
        if (bounds.floor() > 1 && first.seq() <= bounds.floor() && time.isBefore(first.timestamp())) {
            return EXPIRED;
        }
        return Math.min(first.seq(), bounds.head() + 1);
    }

    /**
     * Where a subscription starts: {@code head}, {@code earliest}, a seq, a time ({@link #seqAt}; one before the
     * retained log is the seq below the floor, so the first pull answers as for any expired cursor), or (re-keying)
     * where it already was.
     */
    private long startCursor(String monitorId, Subscribe.From from, Log.Bounds bounds, Cursor previous) {
        long current = previous == null ? 0 : previous.cursor();
        if (from == null) {
            return current;
        }
        long wanted;
        if (from.equals(Subscribe.From.HEAD)) {
            wanted = bounds.head() + 1;
        } else if (from.equals(Subscribe.From.EARLIEST)) {
            wanted = bounds.floor();
        } else if (from.byTime()) {
            long at = seqAt(monitorId, from.time(), bounds);
            wanted = at == EXPIRED ? bounds.floor() - 1 : at;
        } else {
            wanted = from.seq();
        }
        if (previous != null && wanted < current) {
            throw ProtocolException.cursorBackwards(current, wanted);
        }
        return wanted;
    }

    private String freshId() {
        String id;
        do {
            id = "sub-" + Tokens.hex(4);
        } while (tables.subscription(id) != null);
        return id;
    }
}
