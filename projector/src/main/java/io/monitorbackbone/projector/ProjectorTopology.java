package io.monitorbackbone.projector;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Seq;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.regex.Pattern;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.AutoOffsetReset;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
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
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every monitor's log folded into its {@link Aggregate}, published to the compacted {@link #STATE_TOPIC}.
 *
 * <pre>
 * mp.obs.* (pattern) --key by monitor, seq header--> [by-monitor repartition, N partitions]
 *     --decode--> aggregate(Aggregate.apply) [store: aggregates] --> mp.state
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
    /** Carries the seq across the repartition, where the source offset is no longer known. */
    public static final String SEQ_HEADER = "mp_seq";

    private static final Logger LOGGER = LoggerFactory.getLogger(ProjectorTopology.class);

    private ProjectorTopology() {}

    /** @param partitions partitions of the repartition topic: the most tasks the fold can spread over */
    public static Topology build(int partitions) {
        return build(partitions, AggregateSerde.create());
    }

    public static Topology build(int partitions, Serde<Aggregate> aggregateSerde) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
        }
        StreamsBuilder builder = new StreamsBuilder();
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
                .groupByKey(Grouped.with(Serdes.String(), Observed.serde()))
                .aggregate(
                        () -> Aggregate.EMPTY,
                        (monitor, o, aggregate) ->
                                aggregate.apply(o.seq(), o.observation(), Instant.ofEpochMilli(o.appendedAt())),
                        Named.as("fold"),
                        Materialized.<String, Aggregate, KeyValueStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String())
                                .withValueSerde(aggregateSerde))
                .toStream(Named.as("changes"))
                .to(STATE_TOPIC, Produced.with(Serdes.String(), aggregateSerde).withName("state"));
        return builder.build();
    }

    /** The monitor id from the topic name, the seq from the offset; a tombstone is no observation. */
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
            Headers headers = new RecordHeaders(record.headers().toArray());
            // A producer may have sent its own mp_seq; only the offset is the seq.
            headers.remove(SEQ_HEADER);
            headers.add(
                    SEQ_HEADER,
                    ByteBuffer.allocate(Long.BYTES)
                            .putLong(Seq.fromOffset(source.offset()))
                            .array());
            context.forward(new Record<>(monitor, record.value(), record.timestamp(), headers));
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
            Header seqHeader = record.headers().lastHeader(SEQ_HEADER);
            if (record.value() == null
                    || seqHeader == null
                    || seqHeader.value() == null
                    || seqHeader.value().length != Long.BYTES) {
                return;
            }
            long seq = ByteBuffer.wrap(seqHeader.value()).getLong();
            try {
                Observed observed = new Observed(
                        seq,
                        record.timestamp(),
                        ObservationRecords.served(
                                record.key(), seq, record.headers(), record.value(), record.timestamp()));
                context.forward(record.withValue(observed));
            } catch (RuntimeException e) {
                LOGGER.warn("skipping unreadable record monitor={} seq={}: {}", record.key(), seq, e.toString());
            }
        }
    }
}
