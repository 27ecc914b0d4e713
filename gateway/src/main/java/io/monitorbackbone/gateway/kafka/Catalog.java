package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * This gateway's view of the compacted tables and of the monitors' logs, kept by the {@link Follower}. The gateway's
 * own acknowledged writes are applied at once too, so a client reads what it just wrote from the replica it wrote to;
 * other replicas catch up as they read the topics.
 */
public final class Catalog {
    private final Map<String, Monitor> monitors = new ConcurrentHashMap<>();
    private final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    private final Map<String, String> subscriptionByReader = new ConcurrentHashMap<>();
    /**
     * The subscriptions of each monitor, by id, and those that push: what {@link #subscriptionsOf} and
     * {@link #pushingSubscriptions} answer without a walk of every subscription (a state request, the sweeper and the
     * pusher's tick each walked all of them once per monitor).
     */
    private final Map<String, Map<String, Subscription>> subscriptionsByMonitor = new ConcurrentHashMap<>();

    private final Map<String, Subscription> pushing = new ConcurrentHashMap<>();
    /** Held while a subscription is applied to the map and its indexes. */
    private final Object subscriptionIndexes = new Object();

    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    /** The value of the last {@code mp.cursors} record the follower read per subscription: what a compaction keeps. */
    private final Map<String, Cursor> lastCursorRecords = new ConcurrentHashMap<>();
    /** Subscriptions whose last record in {@code mp.cursors} does not carry the merge of every write read. */
    private final java.util.Set<String> uncarriedCursors = ConcurrentHashMap.newKeySet();

    private final Map<String, MonitorLog> logs = new ConcurrentHashMap<>();
    private final Map<String, io.monitorbackbone.protocol.lease.Lease> leases = new ConcurrentHashMap<>();
    private final Map<String, io.monitorbackbone.protocol.Aggregate> states = new ConcurrentHashMap<>();
    private final java.util.List<Consumer<String>> stateListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Object stateProgress = new Object();
    private final Object[] locks = new Object[64];
    private volatile Consumer<String> onFollow = id -> {};
    private volatile Runnable onPushing = () -> {};
    private volatile Consumer<String> barrier = table -> {};

    private final int tailCapacity;

    /** @param tailCapacity observations kept in memory per monitor for reads near the head (0: none) */
    public Catalog(int tailCapacity) {
        this.tailCapacity = tailCapacity;
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    /** How {@link #catchUp} waits; set once the follower runs. */
    public void barrier(Consumer<String> barrier) {
        this.barrier = barrier;
    }

    /**
     * Waits until this view holds every write to {@code table} that any gateway had acknowledged before the call, so
     * a reader moving between gateways never sees its cursor go back nor misses its new token.
     */
    public void catchUp(String table) {
        barrier.accept(table);
    }

    /** Who starts reading a monitor's log when something of this gateway needs it: the follower. */
    void onFollow(Consumer<String> follower) {
        this.onFollow = follower;
    }

    public void apply(Monitor monitor) {
        monitors.put(monitor.id(), monitor);
    }

    public void apply(Subscription subscription) {
        // One at a time (the follower and this gateway's own writes both apply): the definition and its two indexes
        // then always name the same version.
        synchronized (subscriptionIndexes) {
            index(subscription);
        }
    }

    private void index(Subscription subscription) {
        Subscription before = subscriptions.put(subscription.id(), subscription);
        if (before != null && !before.monitor().equals(subscription.monitor())) {
            // Not something the server writes (a subscription's monitor is fixed at its creation), but a record that
            // said so must not leave it listed under both.
            Map<String, Subscription> old = subscriptionsByMonitor.get(before.monitor());
            if (old != null) {
                old.remove(subscription.id());
            }
        }
        subscriptionsByMonitor
                .computeIfAbsent(subscription.monitor(), m -> new ConcurrentHashMap<>())
                .put(subscription.id(), subscription);
        if (subscription.pushes()) {
            pushing.put(subscription.id(), subscription);
            onPushing.run();
        } else {
            pushing.remove(subscription.id());
        }
        subscriptionByReader.put(readerKey(subscription.monitor(), subscription.subscriber()), subscription.id());
    }

    public Cursor apply(String subscriptionId, Cursor cursor) {
        Cursor merged = cursors.merge(subscriptionId, cursor, Cursor::merge);
        Subscription s = subscriptions.get(subscriptionId);
        if (s != null) {
            // Delivered counts and the last pull are part of the monitor's state.
            stateChanged(s.monitor());
        }
        return merged;
    }

    /**
     * A record of {@code mp.cursors} as the follower reads it, in the topic's order: merged into the view like any
     * write, and remembered as the key's last record, the one value a compaction keeps. When it does not carry the
     * merge (a lower write landed after a higher one, two gateways writing at once), the subscription is listed in
     * {@link #uncarriedCursors()} until a record that carries the merge follows.
     */
    public Cursor applyRecord(String subscriptionId, Cursor record) {
        Cursor merged = apply(subscriptionId, record);
        synchronized (lastCursorRecords) {
            lastCursorRecords.put(subscriptionId, record);
            if (record.carries(cursors.get(subscriptionId))) {
                uncarriedCursors.remove(subscriptionId);
            } else {
                uncarriedCursors.add(subscriptionId);
            }
        }
        return merged;
    }

    /**
     * The merged cursor of a subscription when the last record read of it in {@code mp.cursors} does not carry it (a
     * compaction would keep less than was acknowledged); null when it does, or when nothing was read.
     */
    public Cursor uncarriedCursor(String subscriptionId) {
        synchronized (lastCursorRecords) {
            Cursor merged = cursors.get(subscriptionId);
            Cursor last = lastCursorRecords.get(subscriptionId);
            return merged == null || (last != null && last.carries(merged)) ? null : merged;
        }
    }

    /** The subscriptions whose last record read does not carry their merged cursor, at this moment. */
    public java.util.Set<String> uncarriedCursors() {
        return java.util.Set.copyOf(uncarriedCursors);
    }

    /**
     * @param key {@code <monitor>\u0000<subject>}, as the leases service keys its table
     * @param lease null for the tombstone of a completed lease, which removes it
     */
    public void applyLease(String key, io.monitorbackbone.protocol.lease.Lease lease) {
        if (lease == null) {
            leases.remove(key);
        } else {
            leases.put(key, lease);
        }
    }

    /** The leases of one monitor as this view last saw them: monitor-less keys never match. */
    public Map<String, io.monitorbackbone.protocol.lease.Lease> leasesOf(String monitorId) {
        String prefix = monitorId + '\u0000';
        Map<String, io.monitorbackbone.protocol.lease.Lease> out = new java.util.HashMap<>();
        leases.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** A monitor's fold as the projector last published it to {@code mp.state}; null removes it. */
    public void applyState(String monitorId, io.monitorbackbone.protocol.Aggregate aggregate) {
        if (aggregate == null) {
            states.remove(monitorId);
        } else {
            states.merge(monitorId, aggregate, (old, fresh) -> fresh.lastSeq() >= old.lastSeq() ? fresh : old);
        }
        synchronized (stateProgress) {
            stateProgress.notifyAll();
        }
        stateChanged(monitorId);
    }

    private void stateChanged(String monitorId) {
        for (Consumer<String> listener : stateListeners) {
            listener.accept(monitorId);
        }
    }

    /** The projector's fold of the monitor's log; {@code Aggregate.EMPTY} before it has published one. */
    public io.monitorbackbone.protocol.Aggregate state(String monitorId) {
        return states.getOrDefault(monitorId, io.monitorbackbone.protocol.Aggregate.EMPTY);
    }

    /**
     * Waits, at most {@code timeout}, until the projector's fold of the monitor reaches {@code seq}; returns the fold
     * it has then, which may still lag.
     */
    public io.monitorbackbone.protocol.Aggregate awaitState(String monitorId, long seq, java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (stateProgress) {
            io.monitorbackbone.protocol.Aggregate a;
            while ((a = state(monitorId)).lastSeq() < seq) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return a;
                }
                try {
                    stateProgress.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return a;
                }
            }
            return a;
        }
    }

    /**
     * Called with a monitor's id each time the projector publishes a new fold of it (at most once per projector commit
     * interval per monitor) and each time one of its subscriptions' cursors moves: the state-changed signal that wakes
     * readers. Listeners must not block.
     */
    public void onStateChanged(Consumer<String> listener) {
        stateListeners.add(listener);
    }

    public Monitor monitor(String id) {
        return monitors.get(id);
    }

    public Collection<Monitor> monitors() {
        return List.copyOf(monitors.values());
    }

    public Subscription subscription(String id) {
        return subscriptions.get(id);
    }

    public Subscription subscriptionOf(String monitorId, String subscriber) {
        String id = subscriptionByReader.get(readerKey(monitorId, subscriber));
        return id == null ? null : subscriptions.get(id);
    }

    public List<Subscription> subscriptionsOf(String monitorId) {
        Map<String, Subscription> of = subscriptionsByMonitor.get(monitorId);
        return of == null ? List.of() : List.copyOf(of.values());
    }

    /** The subscriptions that push to a webhook, of every monitor. */
    public List<Subscription> pushingSubscriptions() {
        return List.copyOf(pushing.values());
    }

    /** Run each time a subscription that pushes is applied (read or written); it must only signal, not block. */
    public void onPushing(Runnable listener) {
        this.onPushing = listener;
    }

    public Cursor cursor(String subscriptionId) {
        return cursors.get(subscriptionId);
    }

    /** How many of a log's newest records the follower reads when it starts following it. */
    int recentWindow() {
        return Math.max(tailCapacity, MonitorLog.RECENT);
    }

    /** What this gateway has read of the monitor's log, without asking to follow it. */
    public MonitorLog log(String monitorId) {
        return logs.computeIfAbsent(monitorId, id -> new MonitorLog(tailCapacity, () -> onFollow.accept(id)));
    }

    /** The monitor's log, which something of this gateway needs: followed from now on, until it has been idle. */
    public MonitorLog use(String monitorId) {
        MonitorLog log = log(monitorId);
        log.want();
        return log;
    }

    /** One lock per key stripe: serialises this gateway's read-modify-write of one subscription or subscriber name. */
    public Object lockFor(String key) {
        return locks[Math.floorMod(key.hashCode(), locks.length)];
    }

    public static String readerKey(String monitorId, String subscriber) {
        return monitorId + '\u0000' + subscriber;
    }
}
