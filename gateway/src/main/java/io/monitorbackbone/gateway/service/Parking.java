package io.monitorbackbone.gateway.service;

import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Where long-polls and SSE streams wait for a monitor's next append. When the process stops, every waiter is woken at
 * once, so a parked pull is answered with what it has (an empty page and its {@code next}) and a stream ends, instead
 * of holding the shutdown until its wait runs out.
 */
@Singleton
public final class Parking {
    private final Set<CompletableFuture<Void>> parked = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    /**
     * Completes when this gateway's tail sees an append past {@code head}, after {@code wait}, or when the process
     * stops. The signal is taken before the check, so an append between the two cannot be missed.
     */
    public CompletableFuture<Void> appendAfter(Tables.Tail log, long head, Duration wait) {
        // Parked, the log stays followed: the follower's append is what wakes this waiter.
        Tables.Hold hold = log.hold();
        CompletableFuture<Void> signal = log.nextAppend();
        if (log.lastSeq() > head || stopping) {
            hold.close();
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> woken = signal.copy().completeOnTimeout(null, wait.toNanos(), TimeUnit.NANOSECONDS);
        parked.add(woken);
        woken.whenComplete((v, e) -> {
            parked.remove(woken);
            hold.close();
        });
        if (stopping) {
            woken.complete(null);
        }
        return woken;
    }

    /** The process is stopping: wake every waiter now, and let none park from here on. */
    public void stop() {
        stopping = true;
        for (CompletableFuture<Void> waiter : parked) {
            waiter.complete(null);
        }
    }

    public boolean stopping() {
        return stopping;
    }
}
