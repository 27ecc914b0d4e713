package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.protocol.States;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.request.ConfigureMonitor;
import io.monitorbackbone.protocol.request.CreateMonitor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Monitors: create, list, get, and their state. */
@ApplicationScoped
public class MonitorService {
    private final LogAdmin logAdmin;
    private final Tables tables;
    private final Log log;
    /** What else retiring a monitor does: the leases its subscriptions hold are released. */
    private final LeaseService leases;

    private final Optional<String> registrationToken;
    private final Clock clock;

    @Inject
    public MonitorService(
            LogAdmin logAdmin,
            Tables tables,
            Log log,
            LeaseService leases,
            @ConfigProperty(name = "mp.registration-token") Optional<String> registrationToken,
            Clock clock) {
        this.logAdmin = logAdmin;
        this.tables = tables;
        this.log = log;
        this.leases = leases;
        this.registrationToken = registrationToken;
        this.clock = clock;
    }

    public Reply create(CreateMonitor request, String bearer) {
        String id = request.id() != null ? request.id() : MonitorDefinitions.freshId();
        boolean attested = registrationToken.isPresent();
        if (attested) {
            String offered = bearer != null ? bearer : request.registrationToken();
            if (offered == null
                    || !MessageDigest.isEqual(
                            offered.getBytes(StandardCharsets.UTF_8),
                            registrationToken.get().getBytes(StandardCharsets.UTF_8))) {
                throw ProtocolException.of(
                        ErrorCode.UNAUTHORIZED, "creating a monitor requires the registration token on this server");
            }
        }
        Instant now = clock.instant();
        MonitorDefinitions.Created created = MonitorDefinitions.create(id, request, now, attested);
        Monitor monitor = created.monitor();
        if (tables.monitor(id) != null) {
            throw ProtocolException.monitorExists(id);
        }
        long seq;
        // docs/adr/0011-atomic-create.md: log, then its configured row, then the definition, which commits the create.
        try (LogAdmin.Fence fence = openFence(id)) {
            tables.catchUp(Topics.MONITORS);
            if (tables.monitor(id) != null) {
                throw ProtocolException.monitorExists(id);
            }
            try {
                createLog(id, monitor.retentionSeconds());
                ObjectNode first = monitor.served(0, Limits.forMonitor(1));
                Draft row = ProtocolRows.configured(
                        monitor, first, "create", null, null, request.rule(), request.reason(), true, now);
                seq = log.append(id, row);
            } catch (ServerFault e) {
                throw notCreated(e.getMessage(), e);
            }
            LogAdmin.Fence.Outcome outcome = fence.commit(Topics.MONITORS, id, monitor);
            Exception failure = fence.failure();
            if (outcome == LogAdmin.Fence.Outcome.ABORTED) {
                // Nothing was committed and the log and its configured row are in place: what a retry of the
                // request would do, once, here (a new fence, which also fences this one, and the definition alone).
                try (LogAdmin.Fence again = openFence(id)) {
                    outcome = again.commit(Topics.MONITORS, id, monitor);
                    failure = again.failure();
                }
            }
            if (outcome == LogAdmin.Fence.Outcome.ABORTED) {
                throw notCreated("Kafka aborted the monitor's definition twice: " + failure, failure);
            }
            if (outcome == LogAdmin.Fence.Outcome.FENCED) {
                throw ProtocolException.of(
                                ErrorCode.DUPLICATE,
                                "another create of this monitor id took over from this one, which did not take effect")
                        .with("id", id);
            }
            if (outcome == LogAdmin.Fence.Outcome.UNKNOWN && !committed(monitor)) {
                throw ServerFault.outcomeUnknown(
                        "Kafka did not confirm the monitor's definition: " + failure,
                        "the create's outcome is unknown: retry it with the same id and body (201: created now; "
                                + "409 DUPLICATE: it was created, with the owner token this answer could not give)",
                        failure);
            }
        }
        tables.apply(monitor);

        ObjectNode served = monitor.served(seq, Limits.forMonitor(1));
        ObjectNode reply = Json.object();
        reply.set("monitor", served);
        reply.put("owner_token", created.ownerToken());
        if (created.subscribeToken() != null) {
            reply.put("subscribe_token", created.subscribeToken());
        }
        reply.put("notice", "the tokens are shown once");
        return Reply.of(201, reply);
    }

    private LogAdmin.Fence openFence(String id) {
        try {
            return logAdmin.openCreate(id);
        } catch (ServerFault e) {
            throw notCreated(e.getMessage(), e.getCause());
        }
    }

    /** Nothing of a create is in force until its definition is committed; a retry with the same id completes it. */
    private static ServerFault notCreated(String message, Throwable cause) {
        return ServerFault.withAdvice(
                message, "the monitor was not created; retry with the same id, which completes it", cause);
    }

    /** Whether this very definition (its token hashes and times included) is what the table now holds. */
    private boolean committed(Monitor monitor) {
        try {
            tables.catchUp(Topics.MONITORS);
        } catch (ServerFault e) {
            return false;
        }
        return monitor.equals(tables.monitor(monitor.id()));
    }

    /**
     * The monitor's log is a topic of its own. One that exists already is the log of a create cut short (this create's
     * fence has stopped any other that is still running), which this one completes.
     */
    private void createLog(String id, Long retentionSeconds) {
        if (logAdmin.createLog(id, retentionSeconds) == LogAdmin.Created.COLLIDING) {
            throw ProtocolException.of(
                            ErrorCode.DUPLICATE,
                            "monitor id collides with an existing one that differs only in '.' and '_'")
                    .with("id", id);
        }
    }

    /**
     * update, pause, resume or retire: the owner only; the new definition is written, then the {@code configured}
     * row that records it, and the reply carries both.
     */
    public Reply configure(String id, ConfigureMonitor request, String bearer) {
        Monitor current = visible(id, bearer);
        if (!current.ownerIs(bearer)) {
            throw ProtocolException.ownerTokenRequired();
        }
        synchronized (tables.lockFor("monitor\u0000" + id)) {
            // The next definition is built on the current one: another gateway's pause, update or retirement a
            // moment ago must be in view first, or this one would write the older definition back over it.
            tables.catchUp(Topics.MONITORS);
            current = tables.monitor(id);
            Instant now = clock.instant();
            String action = request.action();
            Monitor next = action.equals(ConfigureMonitor.UPDATE)
                    ? MonitorDefinitions.update(current, request.patch(), now)
                    : MonitorDefinitions.transition(current, action);
            if (!java.util.Objects.equals(next.retentionSeconds(), current.retentionSeconds())) {
                logAdmin.setRetention(id, next.retentionSeconds());
            }
            Log.Bounds bounds = log.bounds(id);
            ObjectNode before = current.served(bounds.head(), Limits.forMonitor(bounds.floor()));
            ObjectNode after = next.served(bounds.head(), Limits.forMonitor(bounds.floor()));
            tables.put(Topics.MONITORS, id, next);
            tables.apply(next);
            Draft row = ProtocolRows.configured(
                    next,
                    after,
                    action,
                    ProtocolRows.digest(before),
                    MonitorDefinitions.diff(before, after),
                    request.rule(),
                    request.reason(),
                    true,
                    now);
            long seq = log.append(id, row);
            if (next.retired()) {
                leases.releaseHeldBy(next, tables.subscriptionsOf(next.id()), "monitor retired");
            }
            after.put("head", log.bounds(id).head());
            ObjectNode reply = Json.object();
            reply.set("monitor", after);
            reply.put("seq", seq);
            return Reply.of(200, reply);
        }
    }

    public Reply list(String bearer) {
        List<Monitor> visible = tables.monitors().stream()
                .filter(m -> m.visibleTo(bearer))
                .sorted(Comparator.comparing(Monitor::created).thenComparing(Monitor::id))
                .toList();
        Map<String, Log.Bounds> bounds =
                log.bounds(visible.stream().map(Monitor::id).toList());
        ArrayNode monitors = Json.MAPPER.createArrayNode();
        for (Monitor m : visible) {
            Log.Bounds b = bounds.get(m.id());
            monitors.add(m.served(b.head(), Limits.forMonitor(b.floor())));
        }
        ObjectNode reply = Json.object();
        reply.set("monitors", monitors);
        reply.put("ttlMs", 60000);
        reply.put("cacheScope", "private");
        return Reply.of(200, reply);
    }

    public Reply get(String id, String bearer) {
        Monitor m = visible(id, bearer);
        Log.Bounds b = log.bounds(id);
        return Reply.of(200, m.served(b.head(), Limits.forMonitor(b.floor())));
    }

    /** How long a state request waits for a projector that lags beyond this gateway's tail. */
    static final java.time.Duration STATE_WAIT = java.time.Duration.ofSeconds(2);
    /** The most records a state request reads to bring a lagging fold up to the head. */
    static final int STATE_CATCH_UP = 10_000;

    public Reply state(String id, String bearer) {
        Monitor m = visible(id, bearer);
        Log.Bounds b = log.bounds(id);
        int active = 0;
        long delivered = 0;
        Instant lastPull = null;
        for (Subscription s : tables.subscriptionsOf(id)) {
            Cursor c = tables.cursor(s.id());
            if (c != null) {
                delivered += c.deliveredCount();
            }
            if (!s.active()) {
                continue;
            }
            active++;
            Instant pulled = c == null ? null : io.monitorbackbone.protocol.Times.parseOrNull(c.lastPull());
            if (pulled != null && (lastPull == null || pulled.isAfter(lastPull))) {
                lastPull = pulled;
            }
        }
        States.Context context = new States.Context(b.head(), b.floor(), active, delivered, lastPull, clock.instant());
        return Reply.of(200, States.render(m, folded(id, b.head()), context));
    }

    /**
     * The projector's fold from {@code mp.state}, brought up to the head when it lags: from this gateway's tail (when
     * it follows the log: a state request alone does not make it follow), else
     * by reading at most {@link #STATE_CATCH_UP} records from the log; a projector further behind gets a moment to
     * catch up, and then the state is served as it is, {@code as_of_seq} saying how far it lags. Never a fold of the
     * whole log here (docs/adr/0007-projector.md).
     */
    private io.monitorbackbone.protocol.Aggregate folded(String id, long head) {
        io.monitorbackbone.protocol.Aggregate base = tables.state(id);
        if (base.lastSeq() >= head) {
            return base;
        }
        io.monitorbackbone.protocol.Aggregate fresh = tables.peek(id).foldOnto(id, base, head);
        if (fresh == null) {
            fresh = log.foldFrom(id, base, head, STATE_CATCH_UP);
        }
        if (fresh != null) {
            return fresh;
        }
        base = tables.awaitState(id, head, STATE_WAIT);
        fresh = tables.peek(id).foldOnto(id, base, head);
        return fresh != null ? fresh : base;
    }

    /** The monitor if the bearer may see it, by the one access check (which catches up before a miss is final). */
    Monitor visible(String id, String bearer) {
        return Access.visibleMonitor(tables, id, bearer, "monitor not found");
    }
}
