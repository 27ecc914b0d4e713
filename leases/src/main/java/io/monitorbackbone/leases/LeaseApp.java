package io.monitorbackbone.leases;

import io.monitorbackbone.binding.Durability;
import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.binding.PollPace;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.rocksdb.NativeLibraryLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link LeaseTopology} against a Kafka cluster: {@code java -cp ... io.monitorbackbone.leases.LeaseApp}, or
 * {@link #create(Settings)} from a process that hosts the leases role beside others.
 */
public final class LeaseApp {
    private static final Logger LOGGER = LoggerFactory.getLogger(LeaseApp.class);
    public static final String APPLICATION_ID = "mp-leases";
    /**
     * The stream thread's poll while nothing was read lately: the wall-clock sweep runs at most this late (so an expiry
     * is acted on at most {@code LeaseProcessor.SWEEP_INTERVAL} plus this after its deadline). A command ends the poll
     * when it arrives, so the wait costs a request nothing; it is what an idle leases service turns its loop at.
     */
    static final long IDLE_POLL_MS = 1000;
    /** Where in the state directory RocksDB's native library is copied to ({@link #loadRocksDb}). */
    static final String NATIVE_DIR = "rocksdb-native";

    /**
     * @param clients    the cluster, and the client properties every role passes through ({@code MP_KAFKA_*})
     * @param instanceId a stable {@code group.instance.id} (static membership: a restart within the session timeout
     *                   keeps its tasks, so leases do not pause for a rebalance); null for dynamic membership
     * @param partitions partitions of the command and reply topics when this app creates them: how many tasks, and so
     *                   how many instances, the leases can be spread over
     * @param durability replication factor and {@code min.insync.replicas} of the lease topics and of the app's
     *                   internal topics
     * @param commitIntervalMs how often a transaction commits; a reply is visible only then, so this bounds the added
     *                   latency of every lease request
     */
    public record Settings(
            KafkaClients clients,
            Path stateDir,
            String instanceId,
            int partitions,
            Durability durability,
            long commitIntervalMs) {

        /** Settings with nothing passed through to the clients, and only a replication factor. */
        public Settings(
                String bootstrapServers,
                Path stateDir,
                String instanceId,
                int partitions,
                short replicationFactor,
                long commitIntervalMs) {
            this(
                    KafkaClients.of(bootstrapServers),
                    stateDir,
                    instanceId,
                    partitions,
                    Durability.of(replicationFactor),
                    commitIntervalMs);
        }

        public short replicationFactor() {
            return durability.replicationFactor();
        }

        public String bootstrapServers() {
            return clients.bootstrapServers();
        }

        public static Settings fromEnvironment(Map<String, String> env) {
            String bootstrap = env.get("KAFKA_BOOTSTRAP_SERVERS");
            if (bootstrap == null || bootstrap.isBlank()) {
                throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required");
            }
            String data = env.get("MP_DATA");
            Path stateDir;
            try {
                stateDir = data == null || data.isBlank()
                        ? Files.createTempDirectory("mp-leases")
                        : Path.of(data, "leases");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String instance = env.get("MP_LEASES_INSTANCE_ID");
            return new Settings(
                    KafkaClients.of(bootstrap, env),
                    stateDir,
                    instance == null || instance.isBlank() ? null : instance,
                    Integer.parseInt(env.getOrDefault(
                            "MP_LEASE_PARTITIONS", String.valueOf(TopicLayout.DEFAULT_LEASE_PARTITIONS))),
                    Durability.fromEnvironment(env, (short) 1),
                    Long.parseLong(env.getOrDefault("MP_LEASES_COMMIT_INTERVAL_MS", "100")));
        }
    }

    private LeaseApp() {}

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
        loadRocksDb(settings.stateDir(), System.getenv());
        int partitions = ensureTopics(settings);
        LOGGER.info("leases: partitions={} stateDir={}", partitions, settings.stateDir());
        return new KafkaStreams(
                LeaseTopology.build(LeaseTopology.Topics.DEFAULT.withPartitions(partitions), LeaseSerdes.json()),
                config(settings),
                new PollPace.Supplier(settings.commitIntervalMs()));
    }

    /**
     * The Streams configuration. {@code exactly_once_v2}: the lease table's changelog, the reply, the lease row in the
     * monitor's log and the {@code mp.leases} entry are written in one transaction with the consumed offsets, so a
     * crash at any point either leaves none of them (and the command is decided again, against the same state) or all
     * of them. Readers of the replies and logs must use {@code isolation.level=read_committed}.
     */
    public static Properties config(Settings settings) {
        Map<String, Object> p = new HashMap<>();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        p.put(StreamsConfig.STATE_DIR_CONFIG, settings.stateDir().toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // Its changelog and repartition topics as durable as the lease topics.
        p.putAll(settings.durability().streamsConfigs());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, settings.commitIntervalMs());
        // The thread commits only between polls: after a poll that read commands, a long poll would hold their
        // decided replies back whatever the commit interval. PollPace keeps those polls as short as the commit
        // interval (at most 100 ms) and waits this long only when nothing was read lately, so an idle app does not
        // turn its loop a hundred times a second.
        p.put(StreamsConfig.POLL_MS_CONFIG, PollPace.idlePollMs(IDLE_POLL_MS, settings.commitIntervalMs()));
        // A command nobody can read cannot be answered either; the gateway gives up on it after its timeout.
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        if (settings.instanceId() != null) {
            p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, settings.instanceId());
        }
        // Leases held in a task of a process that died wait this long for another instance to take the task over.
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        return settings.clients().streams(p);
    }

    /**
     * Loads RocksDB's native library (the lease stores') from a file in {@code <state dir>/}{@value #NATIVE_DIR}.
     * Left to itself, RocksDB copies the library out of its jar into the system's temporary directory under a new name
     * at every start and deletes it only at a normal exit, so every killed or crashed process left about 14 MB behind
     * there. In a directory of its own the copy has one name, which the next start replaces. RocksDB's own setting for
     * the place, {@code ROCKSDB_SHAREDLIB_DIR}, wins when set. Once a process has loaded the library (a second app in
     * one JVM, as in tests), nothing happens.
     */
    static void loadRocksDb(Path stateDir, Map<String, String> env) {
        String own = env.get("ROCKSDB_SHAREDLIB_DIR");
        if (own != null && !own.isBlank()) {
            return;
        }
        Path dir = stateDir.resolve(NATIVE_DIR);
        try {
            Files.createDirectories(dir);
            NativeLibraryLoader.getInstance().loadLibrary(dir.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load RocksDB's native library into " + dir, e);
        }
    }

    /**
     * Refuses durability settings the cluster cannot or should not take ({@link Durability#checkCluster}), then creates
     * the lease topics where missing.
     *
     * @return the command topic's partition count, which the topology must match
     */
    static int ensureTopics(Settings settings) {
        TopicLayout layout = TopicLayout.of(settings.durability(), 1, settings.partitions());
        try (Admin admin = Admin.create(settings.clients().properties("mp-leases-admin", Map.of()))) {
            settings.durability().checkCluster(admin, Duration.ofSeconds(60));
            TopicLayout.createMissing(admin, layout.leaseTopics(), Duration.ofSeconds(60));
            // Just created, here or by another process: its metadata may not have reached this broker yet.
            TopicDescription commands = TopicLayout.describe(
                            admin, List.of(Topics.LEASE_COMMANDS), Duration.ofSeconds(60))
                    .get(Topics.LEASE_COMMANDS);
            return commands.partitions().size();
        }
    }
}
