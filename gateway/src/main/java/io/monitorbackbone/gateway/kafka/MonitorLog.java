package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.protocol.Aggregate;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this gateway's tail has seen of one monitor's log: the running aggregate, the types it carried, and the signal
 * parked pulls wait on. The signal is replaced on every append, so a waiter that takes it after checking
 * {@link #lastSeq()} cannot miss an append.
 */
public final class MonitorLog {
    private volatile Aggregate aggregate = Aggregate.EMPTY;
    private final Set<String> seenTypes = ConcurrentHashMap.newKeySet();
    private volatile CompletableFuture<Void> nextAppend = new CompletableFuture<>();

    synchronized void apply(long seq, ObjectNode observation) {
        if (seq <= aggregate.lastSeq()) {
            return;
        }
        aggregate = aggregate.apply(seq, observation);
        String type = observation.path("type").asText(null);
        if (type != null) {
            seenTypes.add(type);
        }
        CompletableFuture<Void> fired = nextAppend;
        nextAppend = new CompletableFuture<>();
        fired.complete(null);
    }

    public Aggregate aggregate() {
        return aggregate;
    }

    public long lastSeq() {
        return aggregate.lastSeq();
    }

    public List<String> seenTypes() {
        return List.copyOf(seenTypes);
    }

    /** Completes at the next append this gateway sees. */
    public CompletableFuture<Void> nextAppend() {
        return nextAppend;
    }
}
