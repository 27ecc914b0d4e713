package io.monitorbackbone.leases;

import io.monitorbackbone.binding.ObservationCodec;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.TopicNameExtractor;
import org.apache.kafka.streams.state.Stores;

/**
 * The leases service as a function of its topics and formats.
 *
 * <pre>
 *  mp.lease-commands  (key monitor\0subject, LeaseCommand JSON) ──┐
 *  mp.lease-subjects  (key monitor\0subject, the horizon)      ───┴→ merge → decide ─┬→ mp.lease-replies (key request id)
 *                     stores: lease-table, lease-deadlines (logged)                 ├→ mp.leases (compacted)
 *                     wall-clock sweep every second ────────────────────────────────┴→ mp.obs.&lt;monitor&gt; (the lease row)
 * </pre>
 *
 * The published-subject marks come from the gateway, which writes one to {@link #SUBJECTS} before it acknowledges a
 * publish with a subject: that topic has as many partitions as the command topic and the same key and default
 * partitioner, so the marks and the commands for one (monitor, subject) reach the same task, with no repartition.
 * {@link LeaseProcessor} decides both and emits {@link LeaseOutput}s, which are routed to their topic by kind; a lease
 * row names its monitor's log by its own {@code ce_source}.
 */
public final class LeaseTopology {
    // The topic names are the binding's (io.monitorbackbone.binding.Topics); these name them for the topology's tests.
    public static final String COMMANDS = io.monitorbackbone.binding.Topics.LEASE_COMMANDS;
    public static final String REPLIES = io.monitorbackbone.binding.Topics.LEASE_REPLIES;
    public static final String LEASES = io.monitorbackbone.binding.Topics.LEASES;
    public static final String SUBJECTS = io.monitorbackbone.binding.Topics.LEASE_SUBJECTS;
    public static final String OBS_PREFIX = io.monitorbackbone.binding.Topics.OBS_PREFIX;

    public static final String LEASE_STORE = "lease-table";
    public static final String DEADLINE_STORE = "lease-deadlines";
    /** @param partitions the command topic's partition count, which the subject marks' topic shares */
    public record Topics(
            String commands, String replies, String leases, String subjects, String obsPrefix, int partitions) {
        public static final Topics DEFAULT = new Topics(COMMANDS, REPLIES, LEASES, SUBJECTS, OBS_PREFIX, 1);

        public Topics withPartitions(int n) {
            return new Topics(commands, replies, leases, subjects, obsPrefix, n);
        }

        public String obs(String monitorId) {
            return obsPrefix + monitorId;
        }
    }

    private LeaseTopology() {}

    public static Topology build(Topics topics, LeaseSerdes serdes) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(LEASE_STORE), Serdes.String(), serdes.states()));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore(DEADLINE_STORE), Serdes.String(), Serdes.String()));

        KStream<String, LeaseInput> commands = builder.stream(
                        topics.commands(),
                        Consumed.with(Serdes.String(), serdes.commands()).withName("commands"))
                .filter((key, command) -> key != null && command != null, Named.as("commands-present"))
                .mapValues(LeaseInput.Command::new, Named.as("as-command"));

        // Same key, same partition count, same partitioner as the commands: marks and commands meet in one task.
        KStream<String, LeaseInput> published = builder.stream(
                        topics.subjects(),
                        Consumed.with(Serdes.String(), Serdes.String()).withName("published-subjects"))
                .filter((key, horizon) -> key != null, Named.as("marks-present"))
                .mapValues(
                        horizon -> (LeaseInput) new LeaseInput.Published(horizon == null ? "" : horizon),
                        Named.as("as-published"));

        KStream<String, LeaseOutput> outputs = commands.merge(published, Named.as("inputs"))
                .process(() -> new LeaseProcessor(topics.obsPrefix()), Named.as("decide"), LEASE_STORE, DEADLINE_STORE);

        outputs.split(Named.as("to-"))
                .branch(
                        (key, out) -> out instanceof LeaseOutput.Reply,
                        Branched.withConsumer(
                                replies -> replies.mapValues(
                                                out -> ((LeaseOutput.Reply) out).reply(), Named.as("reply"))
                                        .to(
                                                topics.replies(),
                                                Produced.with(Serdes.String(), serdes.replies())
                                                        .withName("replies")),
                                "replies"))
                .branch(
                        (key, out) -> out instanceof LeaseOutput.LeaseChange,
                        Branched.withConsumer(
                                changes -> changes.mapValues(
                                                out -> ((LeaseOutput.LeaseChange) out).lease(), Named.as("lease"))
                                        .to(
                                                topics.leases(),
                                                Produced.with(Serdes.String(), serdes.leases())
                                                        .withName("leases")),
                                "leases"))
                .defaultBranch(Branched.withConsumer(
                        rows -> rows.mapValues(out -> ((LeaseOutput.Observation) out).data(), Named.as("row"))
                                .to(
                                        monitorLog(topics),
                                        Produced.with(Serdes.String(), Serdes.ByteArray())
                                                .withName("monitor-log")),
                        "observations"));
        return builder.build();
    }

    /** The row's own {@code ce_source} ({@code monitor:<id>}) names the log it belongs in. */
    private static TopicNameExtractor<String, byte[]> monitorLog(Topics topics) {
        return (key, value, context) -> topics.obs(monitorOf(context.headers()));
    }

    private static String monitorOf(Headers headers) {
        org.apache.kafka.common.header.Header h = headers.lastHeader("ce_source");
        String source =
                h == null || h.value() == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
        if (source == null || !source.startsWith(ObservationCodec.SOURCE_PREFIX)) {
            throw new IllegalStateException("lease row without a monitor source: " + source);
        }
        return source.substring(ObservationCodec.SOURCE_PREFIX.length());
    }
}
