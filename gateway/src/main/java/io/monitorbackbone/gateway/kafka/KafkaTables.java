package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.lease.Lease;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** {@link Tables} over this gateway's {@link Catalog} (kept by the {@link Follower}) and its {@link LogWriter}. */
final class KafkaTables implements Tables {
    private final Catalog catalog;
    private final LogWriter writer;
    private final CursorWrites cursorWrites;

    /** Tables that write no cursor (a test of another path): a cursor write fails loudly. */
    KafkaTables(Catalog catalog, LogWriter writer) {
        this(catalog, writer, null);
    }

    KafkaTables(Catalog catalog, LogWriter writer, CursorWrites cursorWrites) {
        this.catalog = catalog;
        this.writer = writer;
        this.cursorWrites = cursorWrites;
    }

    @Override
    public void catchUp(String table) {
        catalog.catchUp(table);
    }

    @Override
    public Monitor monitor(String id) {
        return catalog.monitor(id);
    }

    @Override
    public Collection<Monitor> monitors() {
        return catalog.monitors();
    }

    @Override
    public Subscription subscription(String id) {
        return catalog.subscription(id);
    }

    @Override
    public Subscription subscriptionOf(String monitorId, String subscriber) {
        return catalog.subscriptionOf(monitorId, subscriber);
    }

    @Override
    public List<Subscription> subscriptionsOf(String monitorId) {
        return catalog.subscriptionsOf(monitorId);
    }

    @Override
    public List<Subscription> pushingSubscriptions() {
        return catalog.pushingSubscriptions();
    }

    @Override
    public void onPushing(Runnable listener) {
        catalog.onPushing(listener);
    }

    @Override
    public Cursor cursor(String subscriptionId) {
        return catalog.cursor(subscriptionId);
    }

    @Override
    public Map<String, Lease> leasesOf(String monitorId) {
        return catalog.leasesOf(monitorId);
    }

    @Override
    public Aggregate state(String monitorId) {
        return catalog.state(monitorId);
    }

    @Override
    public Aggregate awaitState(String monitorId, long seq, Duration timeout) {
        return catalog.awaitState(monitorId, seq, timeout);
    }

    @Override
    public Tail tail(String monitorId) {
        return catalog.use(monitorId);
    }

    @Override
    public Tail peek(String monitorId) {
        return catalog.log(monitorId);
    }

    @Override
    public Object lockFor(String key) {
        return catalog.lockFor(key);
    }

    @Override
    public void put(String table, String key, Object value) {
        if (io.monitorbackbone.binding.Topics.CURSORS.equals(table) && value instanceof Cursor cursor) {
            if (cursorWrites == null) {
                throw new IllegalStateException("these tables were built without cursor writes");
            }
            cursorWrites.put(key, cursor);
            return;
        }
        writer.put(table, key, value);
    }

    @Override
    public void putText(String topic, String key, String value) {
        writer.putText(topic, key, value);
    }

    @Override
    public CompletableFuture<Void> putTextAsync(String topic, String key, String value) {
        return writer.putTextAsync(topic, key, value);
    }

    @Override
    public void apply(Monitor monitor) {
        catalog.apply(monitor);
    }

    @Override
    public void apply(Subscription subscription) {
        catalog.apply(subscription);
    }

    @Override
    public Cursor apply(String subscriptionId, Cursor cursor) {
        return catalog.apply(subscriptionId, cursor);
    }
}
