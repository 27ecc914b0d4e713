package io.monitorbackbone.gateway.service.fake;

import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.lease.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link Tables} in memory: a view that is always caught up, with every row written kept in order so a test can say
 * what was written. A written row is not in the view until the service applies it, as over Kafka.
 */
public final class FakeTables implements Tables {
    private java.util.function.Consumer<String> onCatchUp = table -> {};
    /** One row written to a table, in the order the service wrote it. */
    public record Row(String table, String key, Object value) {}

    private final Map<String, Monitor> monitors = new LinkedHashMap<>();
    private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
    private final Map<String, Cursor> cursors = new HashMap<>();
    private final Map<String, Map<String, Lease>> leases = new HashMap<>();
    private final Map<String, Aggregate> states = new HashMap<>();
    private final Map<String, FakeTail> tails = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private final List<Row> written = new ArrayList<>();
    private final List<String> caughtUp = new ArrayList<>();

    @Override
    public synchronized void catchUp(String table) {
        caughtUp.add(table);
        onCatchUp.accept(table);
    }

    /** What catching up with a table brings in: a test's stand-in for another gateway's write read just now. */
    public synchronized void onCatchUp(java.util.function.Consumer<String> hook) {
        this.onCatchUp = hook;
    }

    @Override
    public synchronized Monitor monitor(String id) {
        return monitors.get(id);
    }

    @Override
    public synchronized Collection<Monitor> monitors() {
        return List.copyOf(monitors.values());
    }

    @Override
    public synchronized Subscription subscription(String id) {
        return subscriptions.get(id);
    }

    @Override
    public synchronized Subscription subscriptionOf(String monitorId, String subscriber) {
        return subscriptions.values().stream()
                .filter(s -> s.monitor().equals(monitorId) && s.subscriber().equals(subscriber))
                .findFirst()
                .orElse(null);
    }

    @Override
    public synchronized List<Subscription> subscriptionsOf(String monitorId) {
        return subscriptions.values().stream()
                .filter(s -> s.monitor().equals(monitorId))
                .toList();
    }

    @Override
    public synchronized Cursor cursor(String subscriptionId) {
        return cursors.get(subscriptionId);
    }

    @Override
    public synchronized Map<String, Lease> leasesOf(String monitorId) {
        return Map.copyOf(leases.getOrDefault(monitorId, Map.of()));
    }

    @Override
    public synchronized Aggregate state(String monitorId) {
        return states.getOrDefault(monitorId, Aggregate.EMPTY);
    }

    @Override
    public Aggregate awaitState(String monitorId, long seq, Duration timeout) {
        return state(monitorId);
    }

    @Override
    public FakeTail tail(String monitorId) {
        return tails.computeIfAbsent(monitorId, id -> new FakeTail());
    }

    @Override
    public Object lockFor(String key) {
        return locks.computeIfAbsent(key, k -> new Object());
    }

    @Override
    public synchronized void put(String table, String key, Object value) {
        written.add(new Row(table, key, value));
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> putTextAsync(String topic, String key, String value) {
        putText(topic, key, value);
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized void putText(String topic, String key, String value) {
        written.add(new Row(topic, key, value));
    }

    @Override
    public synchronized void apply(Monitor monitor) {
        monitors.put(monitor.id(), monitor);
    }

    @Override
    public synchronized void apply(Subscription subscription) {
        subscriptions.put(subscription.id(), subscription);
    }

    @Override
    public synchronized Cursor apply(String subscriptionId, Cursor cursor) {
        return cursors.merge(subscriptionId, cursor, Cursor::merge);
    }

    /** A lease as the leases service would have written it to {@code mp.leases}. */
    public synchronized void lease(String monitorId, Lease lease) {
        leases.computeIfAbsent(monitorId, id -> new HashMap<>()).put(monitorId + '\u0000' + lease.subject(), lease);
    }

    /** A fold as the projector would have published it to {@code mp.state}. */
    public synchronized void state(String monitorId, Aggregate aggregate) {
        states.put(monitorId, aggregate);
    }

    /** Every row written so far, oldest first. */
    public synchronized List<Row> written() {
        return List.copyOf(written);
    }

    /** The rows written to one table, oldest first. */
    public synchronized List<Row> written(String table) {
        return written.stream().filter(r -> r.table().equals(table)).toList();
    }

    /** The tables the services asked to catch up with, in order. */
    public synchronized List<String> caughtUp() {
        return List.copyOf(caughtUp);
    }
}
