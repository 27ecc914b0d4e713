package io.monitorbackbone.projector;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Seq;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.AutoOffsetReset;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.UsePartitionTimeOnInvalidTimestamp;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every monitor's log folded into its {@link Aggregate}, published to the compacted {@link #STATE_TOPIC}.
 *
 * <pre>
 * mp.obs.* (pattern) --key by monitor; seq, headers and value in one value--> [by-monitor repartition, N partitions]
 *     --decode--> fold(Aggregate.apply on the aggregate held in memory) [store: aggregates]
 *     --at every commit, each changed aggregate once--> mp.state
 * </pre>
 *
 * A pattern source puts partition 0 of every monitor topic in the same task, so the first sub-topology only re-keys;
 * the repartition spreads the decoding and the fold over N tasks, and so over threads and instances.
 */
public final class ProjectorTopology {
    // The topic names are the binding's (io.monitorbackbone.binding.Topics); these name them for the topology's tests.
    public static final Pattern LOGS = Topics.OBS;
    public static final String STATE_TOPIC = Topics.STATE;
    /** The repartition topic is {@code <application.id>-by-monitor-repartition}. */
    public static final String BY_MONITOR = "by-monitor";
    /** The store; its changelog is {@code <application.id>-aggregates-changelog}. */
    public static final String STORE = "aggregates";
    /**
     * Carried the seq across the repartition in an earlier version, where the source offset is no longer known; the
     * seq is now in the framed value ({@link ByMonitorRecord}). Still read, and left out of what a producer sent.
     */
    public static final String SEQ_HEADER = "mp_seq";

    /** Aggregates a fold task keeps decoded by default: the busy monitors of its partition. */
    public static final int DEFAULT_HELD = 64;

    private static final Logger LOGGER = LoggerFactory.getLogger(ProjectorTopology.class);

    private ProjectorTopology() {}

    /** @param partitions partitions of the repartition topic: the most tasks the fold can spread over */
    public static Topology build(int partitions) {
        return build(partitions, DEFAULT_HELD);
    }

    /**
     * @param partitions partitions of the repartition topic: the most tasks the fold can spread over
     * @param held       aggregates each fold task keeps decoded in memory; past it the least recently folded one is
     *                   written (if it changed) and dropped, and read from the store again when its monitor comes back
     */
    public static Topology build(int partitions, int held) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
        }
        if (held < 1) {
            throw new IllegalArgumentException("held must be at least 1, not " + held);
        }
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(FoldStore.builder());
        builder.stream(
                        LOGS,
                        Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())
                                .withTimestampExtractor(new UsePartitionTimeOnInvalidTimestamp())
                                .withOffsetResetPolicy(AutoOffsetReset.earliest())
                                .withName("monitor-logs"))
                .process(KeyByMonitor::new, Named.as("key-by-monitor"))
                .repartition(Repartitioned.with(Serdes.String(), Serdes.ByteArray())
                        .withName(BY_MONITOR)
                        .withNumberOfPartitions(partitions))
                .processValues(Decode::new, Named.as("decode"))
                .process(() -> new Fold(held), Named.as("fold"), STORE)
                // The aggregate's JSON, the same bytes as its changelog record: encoded once per commit.
                .to(
                        STATE_TOPIC,
                        Produced.with(Serdes.String(), Serdes.ByteArray()).withName("state"));
        return builder.build();
    }

    /**
     * The monitor id from the topic name, the seq from the offset, the record's headers and value framed in one value
     * ({@link ByMonitorRecord}: the repartition record has no headers); a tombstone is no observation.
     */
    static final class KeyByMonitor implements Processor<byte[], byte[], String, byte[]> {
        private ProcessorContext<String, byte[]> context;

        @Override
        public void init(ProcessorContext<String, byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(Record<byte[], byte[]> record) {
            RecordMetadata source = context.recordMetadata().orElse(null);
            if (record.value() == null || source == null || !Topics.isObs(source.topic())) {
                return;
            }
            String monitor = Topics.monitorOf(source.topic());
            // The seq, the headers and the value in the value; a producer's own mp_seq is left out, as only the
            // offset is the seq.
            byte[] packed = ByMonitorRecord.pack(Seq.fromOffset(source.offset()), record.headers(), record.value());
            context.forward(new Record<>(monitor, packed, record.timestamp(), new RecordHeaders()));
        }
    }

    /**
     * Back to the served observation; a record that is not a CloudEvent is folded as an undecodable row, as the
     * gateway's reader serves it, so head and counters cover every record of the log.
     */
    static final class Decode implements FixedKeyProcessor<String, byte[], Observed> {
        private FixedKeyProcessorContext<String, Observed> context;

        @Override
        public void init(FixedKeyProcessorContext<String, Observed> context) {
            this.context = context;
        }

        @Override
        public void process(FixedKeyRecord<String, byte[]> record) {
            if (record.value() == null) {
                return;
            }
            Header seqHeader = record.headers().lastHeader(SEQ_HEADER);
            long seq;
            Headers headers;
            byte[] value;
            if (seqHeader == null) {
                ByMonitorRecord.Unpacked unpacked = ByMonitorRecord.unpack(record.value());
                if (unpacked == null) {
                    LOGGER.warn("skipping a repartitioned record of monitor={} that is not framed", record.key());
                    return;
                }
                seq = unpacked.seq();
                headers = unpacked.headers();
                value = unpacked.value();
            } else {
                // An earlier version's record: the log record's headers, its seq in mp_seq, its value unchanged.
                if (seqHeader.value() == null || seqHeader.value().length != Long.BYTES) {
                    return;
                }
                seq = ByteBuffer.wrap(seqHeader.value()).getLong();
                headers = record.headers();
                value = record.value();
            }
            try {
                Observed observed = new Observed(
                        seq,
                        record.timestamp(),
                        ObservationRecords.decode(record.key(), headers, value, record.timestamp()));
                // No headers on: the fold writes mp.state with its record's, and the gateway reads a state's
                // value only.
                context.forward(record.withValue(observed).withHeaders(new RecordHeaders()));
            } catch (RuntimeException e) {
                LOGGER.warn("skipping unreadable record monitor={} seq={}: {}", record.key(), seq, e.toString());
            }
        }
    }

    /**
     * {@link Aggregate#apply} per record on the monitor's aggregate held decoded in memory; the changed aggregates are
     * encoded, written to the store (and so its changelog) and sent to {@code mp.state} once per commit, when Kafka
     * Streams calls {@link FoldStore#flushCache} before it commits the offsets ({@link FoldStore} says why that keeps a
     * kill -9 harmless). Between commits a busy monitor's aggregate is neither decoded nor encoded per record, which is
     * what the DSL's {@code aggregate} did (its cache holds bytes), and {@code mp.state} gets one record per changed
     * monitor per commit, as the DSL's cache gave it.
     */
    static final class Fold implements Processor<String, Observed, String, byte[]> {
        private final int maxHeld;
        /** Access order: the least recently folded first, dropped (written first if changed) past {@link #maxHeld}. */
        private final LinkedHashMap<String, Held> held = new LinkedHashMap<>(64, 0.75f, true);

        private InternalProcessorContext<String, byte[]> context;
        private ProcessorNode<?, ?, ?, ?> node;
        private FoldStore store;
        private int changed;

        /** A monitor's aggregate, and for a changed one the record context its write goes out with. */
        private static final class Held {
            Aggregate aggregate;
            /** The aggregate's timestamp: the latest of its records' (as the DSL's aggregate kept it). */
            long timestamp;

            ProcessorRecordContext changedAt;

            Held(Aggregate aggregate, long timestamp) {
                this.aggregate = aggregate;
                this.timestamp = timestamp;
            }
        }

        Fold(int maxHeld) {
            this.maxHeld = maxHeld;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void init(ProcessorContext<String, byte[]> context) {
            // Internal, as the DSL's cache flush listener is: writing at commit time means forwarding outside
            // process(), as this node, with the record context of the record that made the change.
            this.context = (InternalProcessorContext<String, byte[]>) context;
            this.node = this.context.currentNode();
            this.store = context.getStateStore(STORE);
            // A revived or reassigned task starts from the store, never from what an earlier run held.
            held.clear();
            changed = 0;
            store.defer(new FoldStore.Deferred() {
                @Override
                public void writeChanged() {
                    Fold.this.writeChanged();
                }

                @Override
                public void forget() {
                    held.clear();
                    changed = 0;
                }
            });
        }

        @Override
        public void process(Record<String, Observed> record) {
            String monitor = record.key();
            Observed o = record.value();
            if (monitor == null || o == null) {
                return;
            }
            Held h = held.get(monitor);
            if (h == null) {
                ValueAndTimestamp<byte[]> stored = store.aggregates().get(monitor);
                h = stored == null || stored.value() == null
                        ? new Held(Aggregate.EMPTY, Long.MIN_VALUE)
                        : new Held(Aggregate.fromJson(stored.value()), stored.timestamp());
                held.put(monitor, h);
            }
            Aggregate next = h.aggregate.apply(monitor, o.seq(), o.record(), o.appendedAt());
            if (next != h.aggregate) {
                h.aggregate = next;
                if (h.changedAt == null) {
                    changed++;
                }
                h.timestamp = Math.max(h.timestamp, record.timestamp());
                ProcessorRecordContext at = context.recordContext();
                h.changedAt = new ProcessorRecordContext(
                        h.timestamp, at.offset(), at.partition(), at.topic(), record.headers());
            }
            if (held.size() > maxHeld) {
                Iterator<Map.Entry<String, Held>> eldest = held.entrySet().iterator();
                while (held.size() > maxHeld && eldest.hasNext()) {
                    Map.Entry<String, Held> e = eldest.next();
                    // Written before it is let go: the offsets of the records it folded may be committed next.
                    write(e.getKey(), e.getValue());
                    eldest.remove();
                }
            }
        }

        /** Every changed aggregate to the store and {@code mp.state}; they stay held, unchanged. */
        private void writeChanged() {
            if (changed == 0) {
                return;
            }
            for (Map.Entry<String, Held> e : held.entrySet()) {
                write(e.getKey(), e.getValue());
            }
        }

        private void write(String monitor, Held h) {
            if (h.changedAt == null) {
                return;
            }
            ProcessorRecordContext at = h.changedAt;
            byte[] json = h.aggregate.toJson();
            ProcessorNode<?, ?, ?, ?> previousNode = context.currentNode();
            ProcessorRecordContext previousContext = context.recordContext();
            context.setCurrentNode(node);
            context.setRecordContext(at);
            try {
                store.aggregates().put(monitor, ValueAndTimestamp.make(json, at.timestamp()));
                context.forward(new Record<>(monitor, json, at.timestamp(), at.headers()));
            } finally {
                context.setRecordContext(previousContext);
                context.setCurrentNode(previousNode);
            }
            h.changedAt = null;
            changed--;
        }

        @Override
        public void close() {
            // Anything still changed here is of records whose offsets are not committed: they are folded again.
            store.defer(null);
            held.clear();
            changed = 0;
        }
    }
}
