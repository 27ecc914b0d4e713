package io.monitorbackbone.projector;

import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * The fold's store: the monitors' aggregates as JSON in a changelogged, timestamped RocksDB store (the same store name,
 * layout and changelog bytes the DSL's {@code aggregate} kept), and a hook that Kafka Streams calls when it commits.
 *
 * <p>The fold keeps the aggregates it works on decoded in memory ({@link ProjectorTopology.Fold}) and writes the
 * changed ones only when the task commits. The hook is {@link #flushCache}: {@code StreamTask.prepareCommit} calls it
 * on every store of the task, then flushes the producer (so the changelog and {@code mp.state} records are
 * acknowledged), and only then commits the input offsets. So an offset is committed only after the fold of every
 * record before it is in the changelog and in {@code mp.state}, and a kill -9 at any moment redelivers whatever was
 * only in memory; the fold skips redelivered seqs. This is what the DSL's record cache relies on too, and the reason
 * this class extends Kafka Streams' {@link WrappedStateStore} (an internal class, as the cache is): the state manager
 * looks for that shape, both to call {@code flushCache} and to restore the changelog into a timestamped store. See
 * docs/adr/0017-projector-fold-in-memory.md.
 */
public final class FoldStore extends WrappedStateStore<TimestampedKeyValueStore<String, byte[]>, String, byte[]> {

    /** What the fold does when the task commits, and when what it holds in memory is no longer to be trusted. */
    interface Deferred {
        /** Write every changed aggregate to the store and to {@code mp.state}. */
        void writeChanged();

        /** Forget every aggregate held in memory, changed or not: they are read again from the store. */
        void forget();
    }

    private static final Deferred NONE = new Deferred() {
        @Override
        public void writeChanged() {}

        @Override
        public void forget() {}
    };

    private volatile Deferred deferred = NONE;

    FoldStore(TimestampedKeyValueStore<String, byte[]> store) {
        super(store);
    }

    /** The fold of the task this store belongs to; null when that fold closes. */
    void defer(Deferred fold) {
        this.deferred = fold == null ? NONE : fold;
    }

    /** The store itself: what the fold reads an aggregate from and writes it to. */
    TimestampedKeyValueStore<String, byte[]> aggregates() {
        return wrapped();
    }

    @Override
    public void flushCache() {
        deferred.writeChanged();
        super.flushCache();
    }

    @Override
    public void clearCache() {
        deferred.forget();
        super.clearCache();
    }

    @Override
    public void close() {
        deferred.forget();
        deferred = NONE;
        super.close();
    }

    /** The store under {@link ProjectorTopology#STORE}, logged to its changelog, without Kafka Streams' record cache. */
    static StoreBuilder<FoldStore> builder() {
        return new Builder(Stores.timestampedKeyValueStoreBuilder(
                        Stores.persistentTimestampedKeyValueStore(ProjectorTopology.STORE),
                        Serdes.String(),
                        Serdes.ByteArray())
                .withCachingDisabled());
    }

    private static final class Builder implements StoreBuilder<FoldStore> {
        private StoreBuilder<TimestampedKeyValueStore<String, byte[]>> inner;

        Builder(StoreBuilder<TimestampedKeyValueStore<String, byte[]>> inner) {
            this.inner = inner;
        }

        @Override
        public StoreBuilder<FoldStore> withCachingEnabled() {
            // The fold is the cache: a record cache under it would only copy the bytes once more.
            return this;
        }

        @Override
        public StoreBuilder<FoldStore> withCachingDisabled() {
            return this;
        }

        @Override
        public StoreBuilder<FoldStore> withLoggingEnabled(Map<String, String> config) {
            inner = inner.withLoggingEnabled(config);
            return this;
        }

        @Override
        public StoreBuilder<FoldStore> withLoggingDisabled() {
            throw new UnsupportedOperationException("the fold's store is always logged: its changelog is its backup");
        }

        @Override
        public FoldStore build() {
            return new FoldStore(inner.build());
        }

        @Override
        public Map<String, String> logConfig() {
            return inner.logConfig();
        }

        @Override
        public boolean loggingEnabled() {
            return inner.loggingEnabled();
        }

        @Override
        public String name() {
            return inner.name();
        }
    }

    /** For tests: the store of a topology test driver. */
    static FoldStore of(StateStore store) {
        return (FoldStore) store;
    }
}
