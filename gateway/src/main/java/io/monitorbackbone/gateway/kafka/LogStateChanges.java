package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.StateChanges;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A monitor's state changes as this gateway sees them: every append to its log (at once, before the projector has
 * folded it), every fold the projector publishes to {@code mp.state}, and every move of one of its subscriptions'
 * cursors (delivered counts and the last pull), the last two from {@link Catalog#onStateChanged}. No polling. A
 * watched monitor's log is followed while the watch lasts.
 */
public final class LogStateChanges implements StateChanges {
    private final Catalog catalog;
    private final Map<String, Set<Watch>> watches = new ConcurrentHashMap<>();

    public LogStateChanges(Catalog catalog) {
        this.catalog = catalog;
        catalog.onStateChanged(this::fire);
    }

    @Override
    public Registration subscribe(String monitorId, Runnable listener) {
        Watch watch = new Watch(monitorId, catalog.log(monitorId), listener);
        watches.computeIfAbsent(monitorId, id -> ConcurrentHashMap.newKeySet()).add(watch);
        watch.arm();
        return watch;
    }

    private void fire(String monitorId) {
        Set<Watch> set = watches.get(monitorId);
        if (set != null) {
            set.forEach(Watch::fire);
        }
    }

    /**
     * Waits on the log's append signal and re-arms on each firing. The log installs the next signal before it fires
     * the current one, so re-arming from inside the callback cannot miss an append.
     */
    private final class Watch implements Registration {
        private final String monitorId;
        private final MonitorLog log;
        private final Runnable listener;
        /** A watched monitor's log is followed for as long as the watch lasts. */
        private final io.monitorbackbone.gateway.service.Tables.Hold hold;

        private volatile boolean closed;

        Watch(String monitorId, MonitorLog log, Runnable listener) {
            this.monitorId = monitorId;
            this.log = log;
            this.listener = listener;
            this.hold = log.hold();
        }

        void arm() {
            if (closed) {
                return;
            }
            log.nextAppend().thenRun(() -> {
                arm();
                fire();
            });
        }

        void fire() {
            if (!closed) {
                listener.run();
            }
        }

        @Override
        public void close() {
            closed = true;
            hold.close();
            Set<Watch> set = watches.get(monitorId);
            if (set != null) {
                set.remove(this);
            }
        }
    }
}
