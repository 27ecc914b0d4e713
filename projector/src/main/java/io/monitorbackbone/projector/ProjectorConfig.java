package io.monitorbackbone.projector;

import io.monitorbackbone.binding.Durability;
import io.monitorbackbone.binding.KafkaClients;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The projector's settings, each from an environment variable (README.md, "Configuration").
 *
 * @param instanceId          a stable id per instance for static membership: a restarted instance gets its monitors'
 *                            logs back without a rebalance; null for dynamic membership
 * @param stateTopicPartitions partitions of {@code mp.state} when the projector creates it
 * @param threads             fold loops: each a consumer of the group, so the logs spread over the loops of every
 *                            instance
 * @param durability          replication factor ({@code MP_PROJECTOR_REPLICATION_FACTOR}, else
 *                            {@code MP_REPLICATION_FACTOR}, else -1: the broker's default) and
 *                            {@code min.insync.replicas} of {@code mp.state}
 * @param commitIntervalMs    how long a change may wait before it is sent to {@code mp.state} (a busy monitor's changes
 *                            in between go out as one state)
 * @param held                aggregates each fold loop keeps decoded in memory between records (its busiest
 *                            monitors); the others are kept as their JSON
 * @param topicDiscoveryMs    metadata refresh of the pattern subscription, the fallback of {@link NewMonitorTopics}:
 *                            a new monitor's log is folded at most this long (plus a rebalance) after it is created
 *                            even when its definition in {@code mp.monitors} was missed
 * @param kafka               further Kafka client properties, passed through as given: every client's
 *                            ({@code MP_KAFKA_*}, see {@link KafkaClients}), then the projector's own
 *                            ({@code MP_PROJECTOR_KAFKA_*}), which win
 */
public record ProjectorConfig(
        String bootstrapServers,
        String instanceId,
        int stateTopicPartitions,
        int threads,
        Durability durability,
        long commitIntervalMs,
        int held,
        long topicDiscoveryMs,
        Map<String, String> kafka) {
    /** The projector's consumer group, and the prefix of its clients' and threads' names. */
    public static final String APPLICATION_ID = "mp-projector";
    /**
     * The group of the fold loops' consumers. Not {@link #APPLICATION_ID}, the group of the Kafka Streams app that
     * folded the logs until docs/adr/0018: a consumer cannot join a group whose members run Streams' assignor.
     */
    public static final String GROUP_ID = "mp-projector-logs";
    /** A fold loop's poll while it holds no change to write (a record ends the wait at once). */
    public static final long IDLE_POLL_MS = 1000;
    /** Above the largest record a monitor's log holds (8 MiB), with room for headers. */
    public static final int MAX_RECORD_BYTES = 16 * 1024 * 1024;
    /** {@code MP_PROJECTOR_KAFKA_SECURITY_PROTOCOL=SSL} becomes {@code security.protocol=SSL}. */
    public static final String KAFKA_ENV_PREFIX = "MP_PROJECTOR_KAFKA_";
    /**
     * The consumer's {@code metadata.max.age.ms}. {@link NewMonitorTopics} has a new monitor's log read within about a
     * second of its definition; this refresh, which asks for every topic of the cluster and so costs more the more
     * monitors there are, is only the fallback.
     */
    static final int TOPIC_DISCOVERY_MS = 60_000;
    /** The consumer's {@code fetch.min.bytes}: 64 KiB, about a hundred observations of a few hundred bytes. */
    static final int FETCH_MIN_BYTES = 64 * 1024;

    public ProjectorConfig {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required");
        }
        if (stateTopicPartitions < 1 || threads < 1) {
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
                instance == null || instance.isBlank() ? null : instance,
                integer(env, "MP_STATE_PARTITIONS", partitions),
                integer(env, "MP_PROJECTOR_THREADS", 1),
                durability,
                integer(env, "MP_PROJECTOR_COMMIT_INTERVAL_MS", 1000),
                integer(env, "MP_PROJECTOR_HELD", Projector.DEFAULT_HELD),
                integer(env, "MP_PROJECTOR_TOPIC_DISCOVERY_MS", TOPIC_DISCOVERY_MS),
                kafka);
    }

    /**
     * The projector hosted by a gateway process: one loop, a short commit interval so a state reaches {@code mp.state}
     * within a fraction of a second, and the hosting process's instance id ({@code MP_INSTANCE_ID}) as static member id.
     *
     * @param partitions partitions of {@code mp.state} when the process creates it
     */
    public static ProjectorConfig hosted(
            KafkaClients clients, String instanceId, int partitions, Durability durability) {
        return new ProjectorConfig(
                clients.bootstrapServers(),
                instanceId,
                partitions,
                1,
                durability,
                100,
                Projector.DEFAULT_HELD,
                TOPIC_DISCOVERY_MS,
                clients.passThrough());
    }

    /** The hosted projector with only a replication factor. */
    public static ProjectorConfig hosted(
            KafkaClients clients, String instanceId, int partitions, int replicationFactor) {
        return hosted(clients, instanceId, partitions, Durability.of((short) replicationFactor));
    }

    /** The hosted projector with nothing passed through to its clients. */
    public static ProjectorConfig hosted(
            String bootstrapServers, String instanceId, int partitions, int replicationFactor) {
        return hosted(KafkaClients.of(bootstrapServers), instanceId, partitions, replicationFactor);
    }

    /** Of {@code mp.state}; -1 takes the broker's default. */
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
        Map<String, Object> c = client(APPLICATION_ID + "-monitors-" + thread);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, NewMonitorTopics.FETCH_MAX_WAIT_MS);
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return c;
    }

    /** Every client's properties, the projector's own on top, in no group, {@code client.id} given. */
    private Map<String, Object> client(String clientId) {
        Map<String, Object> c = new java.util.HashMap<>();
        adminProperties().forEach((k, v) -> c.put((String) k, v));
        c.remove("application.id");
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        return c;
    }

    /**
     * The fold loops' group: {@code MP_PROJECTOR_KAFKA_GROUP_ID}, else an earlier version's Streams setting kept working
     * ({@code application.id} named its group: {@code <it>-logs}), else {@link #GROUP_ID}.
     */
    private String group() {
        String group = kafka.get(ConsumerConfig.GROUP_ID_CONFIG);
        if (group != null) {
            return group;
        }
        String applicationId = kafka.get("application.id");
        return applicationId != null ? applicationId + "-logs" : GROUP_ID;
    }

    /** The projector's own settings, each unless {@code MP_KAFKA_*} or {@code MP_PROJECTOR_KAFKA_*} set it. */
    private Map<String, Object> withDefaults(Map<String, Object> c, Map<String, Object> own) {
        own.forEach((k, v) -> {
            if (!kafka.containsKey(k)) {
                c.put(k, v);
            }
        });
        return c;
    }

    private String clientPrefix() {
        return APPLICATION_ID + (instanceId == null ? "" : "-" + instanceId);
    }

    /**
     * The consumer of fold loop {@code loop}: a member of {@link #GROUP_ID} subscribed to every monitor's log. It
     * commits nothing ({@code mp.state} is the checkpoint) and reads committed records only.
     */
    public Map<String, Object> consumerProperties(int loop) {
        Map<String, Object> c = client(clientPrefix() + "-logs-" + loop);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group());
        String member =
                instanceId != null ? instanceId + "-" + loop : kafka.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        if (member != null) {
            c.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, member);
        }
        Map<String, Object> own = new java.util.HashMap<>();
        own.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // A log is always read from where its last state stopped (the loop seeks); this only covers a seek past the
        // log's start after retention.
        own.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // The leases service writes lease rows in transactions: an aborted one is not in the log the gateway serves,
        // so the fold must not count it either.
        own.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A new monitor's log gets its partition without taking the others from their loops.
        own.put(
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName());
        // The pattern subscription sees a new mp.obs.<id> only when the consumer refreshes its metadata: the
        // fallback of NewMonitorTopics.
        own.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Long.toString(topicDiscoveryMs));
        // A fetch waits for this much of the logs (or fetch.max.wait.ms, 500 ms) before it answers: single publishes
        // arrive a few records at a time, and a fetch for each few cost the loop a poll and the broker a fetch request
        // per handful. It delays a fold, never what a reader sees: the gateway folds the log past the last state it
        // read, and wakes readers from the log.
        own.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, Integer.toString(FETCH_MIN_BYTES));
        // A member that dies without leaving (kill -9) holds its logs this long; the client default is 45 s.
        own.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        own.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        // What MP_PROJECTOR_KAFKA_* sets wins over these, as it did over the Streams app's.
        return withDefaults(c, own);
    }

    /** The reader of {@code mp.state} of fold loop {@code loop}: assigned, no group. */
    public Map<String, Object> stateReaderProperties(int loop) {
        Map<String, Object> c = client(clientPrefix() + "-states-" + loop);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return c;
    }

    /** The producer of the states: every replica acknowledges, and a retry never reorders a monitor's states. */
    public Map<String, Object> producerProperties() {
        Map<String, Object> own = new java.util.HashMap<>();
        own.put(ProducerConfig.ACKS_CONFIG, "all");
        own.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        own.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_RECORD_BYTES));
        return withDefaults(client(clientPrefix()), own);
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
