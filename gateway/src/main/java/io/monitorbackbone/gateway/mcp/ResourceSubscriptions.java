package io.monitorbackbone.gateway.mcp;

import io.monitorbackbone.gateway.service.StateChanges;
import io.quarkiverse.mcp.server.McpConnection;
import io.quarkiverse.mcp.server.runtime.ConnectionManager;
import io.quarkiverse.mcp.server.runtime.McpConnectionBase;
import io.vertx.core.json.JsonObject;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;

/**
 * Who asked, over {@code resources/subscribe}, to be told when a monitor changes, and the telling: one
 * {@code notifications/resources/updated} per subscribed URI, at most one per {@link #INTERVAL} per monitor, sent on
 * the session's open SSE stream. A wake-up only: the client reads the resource (or pulls) to see what changed.
 */
@ApplicationScoped
public class ResourceSubscriptions {
    private static final Logger LOGGER = Logger.getLogger(ResourceSubscriptions.class);
    static final Duration INTERVAL = Duration.ofMillis(250);

    @Inject
    ConnectionManager connections;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mp-mcp-notify");
        t.setDaemon(true);
        return t;
    });

    private record Subscriber(String session, String uri) {}

    private final class Watch {
        final String monitorId;
        final Set<Subscriber> subscribers = new LinkedHashSet<>();
        final Debounce debounce;
        StateChanges.Registration registration;

        Watch(String monitorId) {
            this.monitorId = monitorId;
            this.debounce = new Debounce(INTERVAL, timer, () -> wake(this));
        }
    }

    private final Map<String, Watch> watches = new HashMap<>();

    public synchronized void subscribe(StateChanges changes, String session, String uri, String monitorId) {
        Watch watch = watches.computeIfAbsent(monitorId, Watch::new);
        watch.subscribers.add(new Subscriber(session, uri));
        if (watch.registration == null) {
            watch.registration = changes.subscribe(monitorId, watch.debounce::signal);
        }
    }

    public synchronized void unsubscribe(String session, String uri) {
        watches.values().forEach(w -> w.subscribers.remove(new Subscriber(session, uri)));
        dropIdle();
    }

    public synchronized void endSession(String session) {
        watches.values().forEach(w -> w.subscribers.removeIf(s -> s.session().equals(session)));
        dropIdle();
    }

    synchronized int count() {
        return watches.values().stream().mapToInt(w -> w.subscribers.size()).sum();
    }

    private void dropIdle() {
        watches.values().removeIf(w -> {
            if (!w.subscribers.isEmpty()) {
                return false;
            }
            if (w.registration != null) {
                w.registration.close();
            }
            return true;
        });
    }

    private void wake(Watch watch) {
        Set<Subscriber> targets;
        synchronized (this) {
            targets = Set.copyOf(watch.subscribers);
        }
        for (Subscriber s : targets) {
            McpConnectionBase connection = connections.get(s.session());
            if (connection == null || connection.status() == McpConnection.Status.CLOSED) {
                // The session ended (deleted or idle too long): forget it.
                synchronized (this) {
                    watch.subscribers.remove(s);
                    dropIdle();
                }
                continue;
            }
            connection.send(new JsonObject()
                    .put("jsonrpc", "2.0")
                    .put("method", "notifications/resources/updated")
                    .put("params", new JsonObject().put("uri", s.uri())));
        }
        LOGGER.debugf("monitor=%s resource update sent to %d subscriber(s)", watch.monitorId, targets.size());
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }
}
