package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.StateChanges;

import java.util.function.Function;

/**
 * State changes as this gateway's tail sees them: every append to a monitor's log. That covers definition changes
 * too, since each one is followed by its {@code configured} row. It does not cover a cursor moved by an ack alone.
 */
public final class LogStateChanges implements StateChanges {
    private final Function<String, MonitorLog> logs;

    public LogStateChanges(Function<String, MonitorLog> logs) {
        this.logs = logs;
    }

    @Override
    public Registration subscribe(String monitorId, Runnable listener) {
        Watch watch = new Watch(logs.apply(monitorId), listener);
        watch.arm();
        return watch;
    }

    /**
     * Waits on the log's append signal and re-arms on each firing. The log installs the next signal before it fires
     * the current one, so re-arming from inside the callback cannot miss an append.
     */
    private static final class Watch implements Registration {
        private final MonitorLog log;
        private final Runnable listener;
        private volatile boolean closed;

        Watch(MonitorLog log, Runnable listener) {
            this.log = log;
            this.listener = listener;
        }

        void arm() {
            if (closed) {
                return;
            }
            log.nextAppend().thenRun(() -> {
                arm();
                if (!closed) {
                    listener.run();
                }
            });
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
