package io.monitorbackbone.projector;

import io.monitorbackbone.binding.Durability;
import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.binding.PollPace;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The projector's settings, each from an environment variable (README.md, "Configuration").
 *
 * @param instanceId          a stable id per instance for static membership: a restarted instance gets its tasks
 *                            back without a rebalance; null for dynamic membership
 * @param partitions          partitions of the by-monitor repartition topic: how far the fold can spread
 * @param stateTopicPartitions partitions of {@code mp.state} when the app creates it
 * @param durability          replication factor ({@code MP_PROJECTOR_REPLICATION_FACTOR}, else
 *                            {@code MP_REPLICATION_FACTOR}, else -1: the broker's default) and
 *                            {@code min.insync.replicas} of the internal topics and {@code mp.state}
 * @param commitIntervalMs    how often the store is committed, and so how long a change may wait before it reaches
 *                            {@code mp.state} (the cache coalesces a busy monitor's changes in between)
 * @param held                aggregates each fold task keeps decoded in memory between records (the busiest
 *                            monitors of its partition); changed ones are written at every commit whatever this is
 * @param topicDiscoveryMs    metadata refresh of the pattern subscription, the fallback of {@link NewMonitorTopics}:
 *                            a new monitor's topic is folded at most this long (plus a rebalance) after it is created
 *                            even when its definition in {@code mp.monitors} was missed
 * @param kafka               further Kafka client and Streams properties, passed through as given: every client's
 *                            ({@code MP_KAFKA_*}, see {@link KafkaClients}), then the projector's own
 *                            ({@code MP_PROJECTOR_KAFKA_*}), which win
 */
public record ProjectorConfig(
        String bootstrapServers,
        String stateDir,
        String instanceId,
        int partitions,
        int stateTopicPartitions,
        int threads,
        Durability durability,
        long commitIntervalMs,
        int held,
        long topicDiscoveryMs,
        String processingGuarantee,
        Map<String, String> kafka) {
    public static final String APPLICATION_ID = "mp-projector";
    /** The stream thread's poll while it has read nothing lately (no punctuation waits on it). */
    public static final long IDLE_POLL_MS = 1000;
    /** Above the largest record a monitor's log holds (8 MiB), with room for headers. */
    public static final int MAX_RECORD_BYTES = 16 * 1024 * 1024;
    /** {@code MP_PROJECTOR_KAFKA_SECURITY_PROTOCOL=SSL} becomes {@code security.protocol=SSL}. */
    public static final String KAFKA_ENV_PREFIX = "MP_PROJECTOR_KAFKA_";
    /**
     * The main consumer's {@code metadata.max.age.ms}. {@link NewMonitorTopics} has a new monitor's log read within
     * about a second of its definition; this refresh, which asks for every topic of the cluster and so costs more the
     * more monitors there are, is only the fallback.
     */
    static final int TOPIC_DISCOVERY_MS = 60_000;
    /** The main consumer's {@code fetch.min.bytes}: 64 KiB, about a hundred observations of a few hundred bytes. */
    static final int FETCH_MIN_BYTES = 64 * 1024;

    public ProjectorConfig {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required");
        }
        if (partitions < 1 || stateTopicPartitions < 1 || threads < 1) {
            throw new IllegalArgumentException("partitions and threads must be at least 1");
        }
        if (held < 1) {
            throw new IllegalArgumentException("MP_PROJECTOR_HELD must be at least 1, not " + held);
        }
        kafka = Map.copyOf(kafka);
    }

    public static ProjectorConfig fromEnv(Map<String, String> env) {
        int partitions = integer(env, "MP_PROJECTOR_PARTITIONS", 8);
        String bootstrap = env.getOrDefault("KAFKA_BOOTSTRAP_SERVERS", "localhost:9092");
        Map<String, String> kafka =
                new java.util.TreeMap<>(KafkaClients.of(bootstrap, env).passThrough());
        env.forEach((k, v) -> {
            if (k.startsWith(KAFKA_ENV_PREFIX) && k.length() > KAFKA_ENV_PREFIX.length()) {
                kafka.put(
                        k.substring(KAFKA_ENV_PREFIX.length())
                                .toLowerCase(Locale.ROOT)
                                .replace('_', '.'),
                        v);
            }
        });
        String instance = env.get("MP_PROJECTOR_INSTANCE_ID");
        Durability durability = Durability.fromEnvironment(env, (short) -1);
        String own = env.get("MP_PROJECTOR_REPLICATION_FACTOR");
        if (own != null && !own.isBlank()) {
            durability = durability.withReplicationFactor((short) integer(env, "MP_PROJECTOR_REPLICATION_FACTOR", -1));
        }
        return new ProjectorConfig(
                bootstrap,
                env.getOrDefault("MP_PROJECTOR_STATE_DIR", "data/projector"),
                instance == null || instance.isBlank() ? null : instance,
                partitions,
                integer(env, "MP_STATE_PARTITIONS", partitions),
                integer(env, "MP_PROJECTOR_THREADS", 1),
                durability,
                integer(env, "MP_PROJECTOR_COMMIT_INTERVAL_MS", 1000),
                integer(env, "MP_PROJECTOR_HELD", ProjectorTopology.DEFAULT_HELD),
                integer(env, "MP_PROJECTOR_TOPIC_DISCOVERY_MS", TOPIC_DISCOVERY_MS),
                env.getOrDefault("MP_PROJECTOR_PROCESSING_GUARANTEE", StreamsConfig.AT_LEAST_ONCE),
                kafka);
    }

    /**
     * The projector hosted by a gateway process: one thread, a short commit interval so a state reaches
     * {@code mp.state} within a fraction of a second, and the hosting process's instance id ({@code MP_INSTANCE_ID}) as static member id.
     */
    public static ProjectorConfig hosted(
            KafkaClients clients, String stateDir, String instanceId, int partitions, Durability durability) {
        return new ProjectorConfig(
                clients.bootstrapServers(),
                stateDir,
                instanceId,
                partitions,
                partitions,
                1,
                durability,
                100,
                ProjectorTopology.DEFAULT_HELD,
                TOPIC_DISCOVERY_MS,
                StreamsConfig.AT_LEAST_ONCE,
                clients.passThrough());
    }

    /** The hosted projector with only a replication factor. */
    public static ProjectorConfig hosted(
            KafkaClients clients, String stateDir, String instanceId, int partitions, int replicationFactor) {
        return hosted(clients, stateDir, instanceId, partitions, Durability.of((short) replicationFactor));
    }

    /** The hosted projector with nothing passed through to its clients. */
    public static ProjectorConfig hosted(
            String bootstrapServers, String stateDir, String instanceId, int partitions, int replicationFactor) {
        return hosted(KafkaClients.of(bootstrapServers), stateDir, instanceId, partitions, replicationFactor);
    }

    /** Of the internal topics and {@code mp.state}; -1 takes the broker's default. */
    public int replicationFactor() {
        return durability.replicationFactor();
    }

    /** The admin client's properties, for creating {@code mp.state}. */
    public Properties adminProperties() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.putAll(kafka);
        return p;
    }

    /**
     * The settings of the {@code mp.monitors} reader of stream thread {@code thread} ({@link NewMonitorTopics}): every
     * client's, as a plain consumer (no group, no commits) that reads committed records, waits in Kafka and never
     * creates the table by asking for it.
     */
    Map<String, Object> newMonitorTopicsProperties(int thread) {
        Map<String, Object> c = new java.util.HashMap<>();
        adminProperties().forEach((k, v) -> c.put((String) k, v));
        c.remove(StreamsConfig.APPLICATION_ID_CONFIG);
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, APPLICATION_ID + "-monitors-" + thread);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, NewMonitorTopics.FETCH_MAX_WAIT_MS);
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return c;
    }

    public Properties streamsProperties() {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        // The repartition topic and changelog as durable as every other topic the server creates.
        p.putAll(durability.streamsConfigs());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitIntervalMs);
        // The fold writes what it changed when the thread commits, which it does only between polls: PollPace keeps
        // the polls after records as short as the commit interval (at most 100 ms), and an idle thread waits this long
        // instead of turning its loop ten times a second (a poll returns as soon as records arrive either way).
        p.put(StreamsConfig.POLL_MS_CONFIG, PollPace.idlePollMs(IDLE_POLL_MS, commitIntervalMs));
        // At-least-once suffices for the fold (a redelivered seq changes nothing); exactly_once_v2 is one setting away.
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        // The leases service writes lease rows in transactions: an aborted one is not in the log the gateway serves,
        // so the fold must not count it either (at-least-once would read uncommitted records by default).
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.ISOLATION_LEVEL_CONFIG), "read_committed");
        // The pattern source sees a new mp.obs.<id> topic only when the main consumer refreshes its metadata: the
        // client default (5 minutes) would leave a new monitor without state for minutes.
        p.put(
                StreamsConfig.mainConsumerPrefix(ConsumerConfig.METADATA_MAX_AGE_CONFIG),
                Long.toString(topicDiscoveryMs));
        // A monitor's log takes records up to 8 MiB (the gateway's limit, and the topic's); each goes through the
        // repartition topic whole, so its producer and the topic must take them too.
        p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), Integer.toString(MAX_RECORD_BYTES));
        p.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), Integer.toString(MAX_RECORD_BYTES));
        // A fetch waits for this much of the logs (or the consumer's fetch.max.wait.ms, 500 ms) before it answers:
        // single publishes arrive a few records at a time, and a fetch for each few cost the fold's thread a poll
        // and the broker a fetch request per handful of records. It delays a fold, never what a reader sees: the
        // gateway folds the log past the last state it read (MonitorService), and wakes readers from the log.
        p.put(
                StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG),
                Integer.toString(FETCH_MIN_BYTES));
        // A member that dies without leaving (kill -9) holds its tasks this long; the client default is 45 s.
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "10000");
        if (instanceId != null) {
            // Kafka Streams suffixes it per thread.
            p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), instanceId);
        }
        p.putAll(kafka);
        return p;
    }

    private static int integer(Map<String, String> env, String name, int fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, not '" + v + "'");
        }
    }
}
