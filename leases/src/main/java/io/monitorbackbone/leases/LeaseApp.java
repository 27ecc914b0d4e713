package io.monitorbackbone.leases;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;

/**
 * Runs {@link LeaseTopology} against a Kafka cluster: {@code java -cp ... io.monitorbackbone.leases.LeaseApp}, or
 * {@link #create(Settings)} from a process that hosts the leases role beside others.
 */
public final class LeaseApp {
    private static final System.Logger LOGGER = System.getLogger(LeaseApp.class.getName());
    public static final String APPLICATION_ID = "mp-leases";

    /**
     * @param instanceId a stable {@code group.instance.id} (static membership: a restart within the session timeout
     *                   keeps its tasks, so leases do not pause for a rebalance); null for dynamic membership
     * @param partitions partitions of the command and reply topics when this app creates them: how many tasks, and so
     *                   how many instances, the leases can be spread over
     * @param commitIntervalMs how often a transaction commits; a reply is visible only then, so this bounds the added
     *                   latency of every lease request
     */
    public record Settings(String bootstrapServers, Path stateDir, String instanceId, int partitions,
                           short replicationFactor, long commitIntervalMs) {

        public static Settings fromEnvironment(Map<String, String> env) {
            String bootstrap = env.get("KAFKA_BOOTSTRAP_SERVERS");
            if (bootstrap == null || bootstrap.isBlank()) {
                throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required");
            }
            String data = env.get("MP_DATA");
            Path stateDir;
            try {
                stateDir = data == null || data.isBlank()
                        ? Files.createTempDirectory("mp-leases") : Path.of(data, "leases");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String instance = env.get("MP_LEASES_INSTANCE_ID");
            return new Settings(bootstrap, stateDir, instance == null || instance.isBlank() ? null : instance,
                    Integer.parseInt(env.getOrDefault("MP_LEASE_PARTITIONS", "3")),
                    Short.parseShort(env.getOrDefault("MP_REPLICATION_FACTOR", "1")),
                    Long.parseLong(env.getOrDefault("MP_LEASES_COMMIT_INTERVAL_MS", "100")));
        }
    }

    private LeaseApp() {
    }

    public static void main(String[] args) throws InterruptedException {
        KafkaStreams streams = create(Settings.fromEnvironment(System.getenv()));
        CountDownLatch stopped = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(streams::close, "mp-leases-shutdown"));
        streams.start();
        stopped.await();
        if (streams.state() == KafkaStreams.State.ERROR) {
            // Streams stops itself on an error it cannot handle; a non-zero exit lets a supervisor restart it.
            System.exit(1);
        }
    }

    /** Creates the topics if missing and returns the app, not yet started; the caller starts and closes it. */
    public static KafkaStreams create(Settings settings) {
        int partitions = ensureTopics(settings);
        LOGGER.log(System.Logger.Level.INFO, "leases: partitions={0} stateDir={1}", partitions, settings.stateDir());
        return new KafkaStreams(
                LeaseTopology.build(LeaseTopology.Topics.DEFAULT.withPartitions(partitions), LeaseSerdes.json()),
                config(settings));
    }

    /**
     * The Streams configuration. {@code exactly_once_v2}: the lease table's changelog, the reply, the lease row in the
     * monitor's log and the {@code mp.leases} entry are written in one transaction with the consumed offsets, so a
     * crash at any point either leaves none of them (and the command is decided again, against the same state) or all
     * of them. Readers of the replies and logs must use {@code isolation.level=read_committed}.
     */
    public static Properties config(Settings settings) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir().toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) settings.replicationFactor());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, settings.commitIntervalMs());
        // The thread commits only between polls: with nothing more to read, a poll of the default 100 ms would hold a
        // decided reply back that long whatever the commit interval.
        p.put(StreamsConfig.POLL_MS_CONFIG, Math.max(1, Math.min(100, settings.commitIntervalMs())));
        // A command nobody can read cannot be answered either; the gateway gives up on it after its timeout.
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        if (settings.instanceId() != null) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, settings.instanceId());
        }
        // Leases held in a task of a process that died wait this long for another instance to take the task over.
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        return p;
    }

    /** @return the command topic's partition count, which the topology must match */
    static int ensureTopics(Settings settings) {
        Map<String, String> compacted = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        List<NewTopic> wanted = List.of(
                new NewTopic(LeaseTopology.COMMANDS, settings.partitions(), settings.replicationFactor()),
                new NewTopic(LeaseTopology.REPLIES, settings.partitions(), settings.replicationFactor()),
                new NewTopic(LeaseTopology.LEASES, settings.partitions(), settings.replicationFactor()).configs(compacted),
                new NewTopic(LeaseTopology.SUBJECTS, settings.partitions(), settings.replicationFactor()).configs(compacted));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers()))) {
            for (NewTopic topic : wanted) {
                try {
                    admin.createTopics(List.of(topic)).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create " + topic.name(), e.getCause());
                    }
                }
            }
            TopicDescription commands = admin.describeTopics(List.of(LeaseTopology.COMMANDS))
                    .allTopicNames().get().get(LeaseTopology.COMMANDS);
            return commands.partitions().size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the leases topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot describe " + LeaseTopology.COMMANDS, e.getCause());
        }
    }
}
