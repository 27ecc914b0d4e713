package io.monitorbackbone.gateway.mcp;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs an action at most once per interval however often it is signalled: the first signal after a quiet interval
 * runs it at once, signals within the interval run it once more when the interval is over. Nothing polls: a timer is
 * set only while a run is pending.
 */
final class Debounce {
    private final long intervalNanos;
    private final ScheduledExecutorService timer;
    private final Runnable action;
    private boolean pending;
    private long lastRun;

    Debounce(Duration interval, ScheduledExecutorService timer, Runnable action) {
        this.intervalNanos = interval.toNanos();
        this.timer = timer;
        this.action = action;
        this.lastRun = System.nanoTime() - intervalNanos;
    }

    void signal() {
        long delay;
        synchronized (this) {
            if (pending) {
                return;
            }
            pending = true;
            delay = Math.max(0, lastRun + intervalNanos - System.nanoTime());
        }
        timer.schedule(this::run, delay, TimeUnit.NANOSECONDS);
    }

    private void run() {
        synchronized (this) {
            pending = false;
            lastRun = System.nanoTime();
        }
        action.run();
    }
}
