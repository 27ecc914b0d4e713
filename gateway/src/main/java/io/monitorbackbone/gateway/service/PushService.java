package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.core.JsonProcessingException;
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
import io.monitorbackbone.protocol.Webhooks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Webhook push (docs/adr/0016-webhook-push.md): delivers a push subscription's observations to its sink one at a time,
 * in seq order, signed the Standard Webhooks way. The cursor moves only when the receiver answered 2xx (through the
 * ack's own cursor write); any other answer is retried after a backoff; {@code 410 Gone} stops the push for good; the
 * {@code delivery_count_limit}-th failure of one observation dead-letters it (a {@code lease} row with
 * {@code dead_letter: true}, as the protocol records a dead-lettered delivery) and the push goes on after it.
 */
@ApplicationScoped
public class PushService {
    /** Who writes the push's own rows. */
    public static final String ACTOR = "system:push";
    /** Observations one run reads at once. */
    static final int BATCH = 20;

    /** Sends one delivery; never throws: a failure to connect or a timeout is an answer with status -1. */
    @FunctionalInterface
    public interface Sender {
        Answer send(URI sink, Map<String, String> headers, byte[] body);
    }

    /** @param status the receiver's HTTP status, or -1 when none came (with {@code error} saying why) */
    public record Answer(int status, String error) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        String described() {
            return status < 0 ? error : "HTTP " + status;
        }
    }

    /**
     * One subscription's place in the push: the observation being tried and how often, and when it may be tried
     * again. Used by one run at a time.
     */
    public static final class Lane {
        private final String subscription;
        private long seq;
        private int attempts;
        private boolean caughtUp;

        public Lane(String subscription) {
            this.subscription = subscription;
        }

        public String subscription() {
            return subscription;
        }

        public int attempts() {
            return attempts;
        }
    }

    private final Tables tables;
    private final Log log;
    private final Feeds feeds;
    private final DeliveryService delivery;
    private final Clock clock;
    private PushSettings settings = PushSettings.DEFAULT;
    private Metrics metrics = Metrics.none();
    private PushSettings.Resolver resolver = java.net.InetAddress::getAllByName;

    @Inject
    public PushService(Tables tables, Log log, DeliveryService delivery, Clock clock) {
        this.tables = tables;
        this.log = log;
        this.feeds = new Feeds(tables, log, new Access(tables, log));
        this.delivery = delivery;
        this.clock = clock;
    }

    @Inject
    void metrics(Metrics metrics) {
        this.metrics = metrics;
    }

    @Inject
    void settings(PushSettings settings) {
        this.settings = settings;
    }

    /** The resolver the sink is checked with before deliveries; tests give their own. */
    void resolver(PushSettings.Resolver resolver) {
        this.resolver = resolver;
    }

    public PushSettings settings() {
        return settings;
    }

    /**
     * Delivers from the subscription's committed cursor, in order, until a delivery fails, there is nothing more, or
     * {@code stillPushing} turns false. Returns how long to wait before the next run: zero when there may be more to
     * read now, a backoff after a failure, null when caught up (or the subscription no longer pushes).
     */
    public Duration run(Lane lane, Sender sender, BooleanSupplier stillPushing) {
        if (!lane.caughtUp) {
            // A lane is new to this gateway (it just took the push over): what the gateway that pushed before
            // committed must be in view first, or it would push again what that one's receiver already took.
            tables.catchUp(Topics.SUBSCRIPTIONS);
            tables.catchUp(Topics.CURSORS);
            lane.caughtUp = true;
        }
        Subscription s = tables.subscription(lane.subscription);
        Monitor monitor = s == null ? null : tables.monitor(s.monitor());
        Cursor cursor = s == null ? null : tables.cursor(s.id());
        if (s == null || monitor == null || cursor == null || !s.pushes()) {
            return null;
        }
        URI sink = URI.create(s.sink());
        Log.Page page = feeds.of(s, monitor).read(cursor.cursor(), BATCH, false);
        // Checked again here, not only at subscribe: the sink's name may resolve to a private address by now. A refused
        // sink is a failed attempt that sent nothing (retried with backoff, dead-lettered at the limit).
        String refused = page.entries().isEmpty() ? null : refusal(s.sink());
        for (Log.Entry e : page.entries()) {
            if (!stillPushing.getAsBoolean()) {
                return Duration.ZERO;
            }
            if (ownRow(e, s.id())) {
                // What the push wrote about this subscription is not pushed to it: a receiver that fails for good
                // would otherwise be sent a dead letter about a dead letter, for ever.
                delivery.pushed(s, e.seq() + 1);
                continue;
            }
            if (e.seq() != lane.seq) {
                lane.seq = e.seq();
                lane.attempts = 0;
            }
            lane.attempts++;
            Answer answer = refused != null ? new Answer(-1, refused) : deliver(sender, s, sink, e, lane.attempts);
            if (answer.ok()) {
                delivery.pushed(s, e.seq() + 1);
                lane.attempts = 0;
                metrics.pushed("delivered");
            } else if (answer.status() == 410) {
                disable(s, monitor, e.seq());
                metrics.pushed("gone");
                return null;
            } else if (lane.attempts >= monitor.deliveryCountLimitOrDefault()) {
                deadLetter(s, monitor, e, lane.attempts, answer);
                delivery.pushed(s, e.seq() + 1);
                lane.attempts = 0;
                metrics.pushed("dead_lettered");
            } else {
                metrics.pushed(refused != null ? "refused" : "failed");
                return settings.backoff(lane.attempts);
            }
        }
        if (page.next() > cursor.cursor()) {
            // Past what the filters passed over, once everything before it was delivered.
            delivery.pushed(s, page.next());
        }
        return page.entries().size() >= BATCH ? Duration.ZERO : null;
    }

    /** Why the sink may not be pushed to now, or null when it may. */
    private String refusal(String sink) {
        try {
            settings.checkSink(sink, resolver);
            return null;
        } catch (ProtocolException e) {
            return "sink refused: " + e.getMessage();
        }
    }

    private Answer deliver(Sender sender, Subscription s, URI sink, Log.Entry e, int attempt) {
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(e.draft().served(s.monitor(), e.seq(), attempt > 1));
        } catch (JsonProcessingException ex) {
            throw new IllegalStateException("a served observation is always JSON", ex);
        }
        String id = Webhooks.deliveryId(s.id(), e.seq());
        long timestamp = clock.instant().getEpochSecond();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(Webhooks.ID_HEADER, id);
        headers.put(Webhooks.TIMESTAMP_HEADER, Long.toString(timestamp));
        headers.put(Webhooks.SIGNATURE_HEADER, Webhooks.sign(s.pushSecret(), id, timestamp, body));
        headers.put("Content-Type", "application/cloudevents+json");
        return sender.send(sink, headers, body);
    }

    private static boolean ownRow(Log.Entry e, String subscriptionId) {
        return ACTOR.equals(e.draft().actor())
                && e.draft().data() != null
                && subscriptionId.equals(
                        e.draft().data().path("payload").path("subscription").asText(null));
    }

    /** The receiver said it is gone: the subscription stops pushing, says why, and the log records it. */
    private void disable(Subscription s, Monitor monitor, long seq) {
        Instant now = clock.instant();
        ObjectNode why = Json.object();
        why.put("at", Times.format(now));
        why.put("status", 410);
        why.put("seq", seq);
        why.put("reason", "the receiver answered 410 Gone");
        synchronized (tables.lockFor(Tables.readerKey(s.monitor(), s.subscriber()))) {
            tables.catchUp(Topics.SUBSCRIPTIONS);
            Subscription current = tables.subscription(s.id());
            if (current == null
                    || !current.pushes()
                    || !java.util.Objects.equals(current.pushSecret(), s.pushSecret())) {
                // Retired, re-subscribed or disabled meanwhile: this delivery's verdict is about a definition gone.
                return;
            }
            Subscription disabled = current.pushDisabled(why);
            tables.put(Topics.SUBSCRIPTIONS, s.id(), disabled);
            tables.apply(disabled);
        }
        ObjectNode payload = Json.object();
        payload.put("subscription", s.id());
        payload.put("subscriber", s.subscriber());
        payload.put("cursor", seq);
        ObjectNode push = payload.putObject("push");
        push.put("active", false);
        push.setAll(why);
        log.append(monitor.id(), ProtocolRows.row(monitor, Vocabulary.SUBSCRIBED, ACTOR, null, payload, false, now));
    }

    /** The observation failed as often as the monitor allows: recorded as a dead-lettered delivery, then skipped. */
    private void deadLetter(Subscription s, Monitor monitor, Log.Entry e, int attempts, Answer last) {
        ObjectNode payload = Json.object();
        payload.put("action", "reject");
        payload.put("subject", e.draft().subject());
        payload.put("subscription", s.id());
        payload.put(
                "reason",
                "push failed " + attempts + " times (delivery_count_limit " + monitor.deliveryCountLimitOrDefault()
                        + "), last: " + last.described());
        payload.put("attempts", attempts);
        payload.put("dead_letter", true);
        payload.put("delivery", "push");
        payload.put("seq", e.seq());
        payload.put("webhook_id", Webhooks.deliveryId(s.id(), e.seq()));
        if (last.status() >= 0) {
            payload.put("status", last.status());
        } else {
            payload.putNull("status");
        }
        log.append(
                monitor.id(),
                ProtocolRows.row(
                        monitor, Vocabulary.LEASE, ACTOR, e.draft().subject(), payload, false, clock.instant()));
    }
}
