package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Durability;
import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.broker.ClientCredentials;
import io.monitorbackbone.broker.EmbeddedKafka;
import io.monitorbackbone.gateway.GatewayConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * The Kafka side of one gateway process: the embedded broker when no cluster is configured, one admin client, the
 * idempotent producers ({@code MP_LOG_PRODUCERS}: the first also for the tables, the last for single rows), and the
 * settings every consumer shares, all configured from one {@link KafkaClients} and with topics laid out by one
 * {@link TopicLayout}. Started and stopped by {@code Lifecycle} in a fixed order so the broker outlives its clients.
 */
public final class KafkaRuntime implements AutoCloseable {
    private static final Logger LOGGER = Logger.getLogger(KafkaRuntime.class);

    private static final int MAX_RECORD_BYTES = TopicLayout.MAX_RECORD_BYTES;

    /**
     * A log reader stops at the end offset it was given, but its consumer has already sent the next fetch, from there;
     * the broker parks that fetch for fetch.max.wait.ms, and with one broker every later fetch of this consumer waits
     * behind it. Readers never wait for new records in Kafka (the follower signals them), so theirs answer at once.
     */
    static final int READER_FETCH_MAX_WAIT_MS = 0;
    /**
     * The follower waits in Kafka for what is new: the broker answers its parked fetch as soon as any partition it
     * reads gets a record or a transaction marker, so the wait costs a write nothing. What it saves is the empty
     * round trips of an idle gateway, each of which the broker answers by reading every partition of the fetch
     * session (the tables' and the followed logs'): at 100 ms they were the largest part of an idle server's CPU.
     * The price: a log the follower starts to read joins its next fetch, after the parked one returns, so the first
     * read of a newly followed log can wait up to this long.
     */
    static final int FOLLOWER_FETCH_MAX_WAIT_MS = 500;
    /**
     * The lease reply consumer waits in Kafka for the next reply: the broker answers its parked fetch as soon as the
     * leases service's commit makes a reply readable (the commit marker moves the last stable offset), so a long wait
     * costs a reply nothing, and an idle gateway sends a fetch every five seconds (at 10 ms it sent a hundred a
     * second). It reads the same partitions from start to close, so no partition ever waits for a parked fetch to join
     * the next one, the price the follower pays.
     */
    static final int LEASE_REPLIES_FETCH_MAX_WAIT_MS = 5_000;

    private final KafkaClients clients;
    private final Durability durability;
    private final TopicLayout layout;
    private final java.util.Optional<Integer> tablePartitionsSet;
    private final EmbeddedKafka broker;
    private final Admin admin;
    /** The producer of the tables first, then the others observations are appended with, the last the single rows'. */
    private final List<KafkaProducer<String, byte[]>> logProducers;

    private KafkaRuntime(GatewayConfig.Kafka config, EmbeddedKafka broker, KafkaClients clients) {
        this.clients = clients;
        this.durability = durability(config);
        this.tablePartitionsSet = config.tablePartitions();
        this.layout = TopicLayout.of(
                durability, tablePartitionsSet.orElse(TopicLayout.DEFAULT_TABLE_PARTITIONS), config.leasePartitions());
        this.broker = broker;
        this.admin = Admin.create(clients.properties("mp-gateway-admin", Map.of()));
        List<KafkaProducer<String, byte[]>> producers = new java.util.ArrayList<>();
        for (int i = 0; i < config.logProducers(); i++) {
            producers.add(new KafkaProducer<>(
                    logProducerProperties(clients, i, config.logProducers()),
                    new StringSerializer(),
                    new ByteArraySerializer()));
        }
        this.logProducers = List.copyOf(producers);
    }

    /**
     * Starts the embedded broker under {@code data/kafka} unless a cluster is configured, then the clients. The embedded
     * broker requires its SCRAM user, made at first start and kept in {@code data/kafka-client.properties} (owner only),
     * which every client of this process logs in as.
     *
     * @param env where {@code MP_KAFKA_*} client properties are passed through from
     */
    public static KafkaRuntime start(GatewayConfig config, Map<String, String> env) {
        GatewayConfig.Kafka kafka = config.kafka();
        Map<String, String> passThrough = KafkaClients.passThroughFrom(env);
        if (kafka.bootstrapServers().isPresent()) {
            return new KafkaRuntime(
                    kafka, null, new KafkaClients(kafka.bootstrapServers().get(), passThrough));
        }
        Path data = config.data().toAbsolutePath().normalize();
        ClientCredentials user = ClientCredentials.read(data);
        boolean generated = user == null;
        if (generated) {
            user = ClientCredentials.generate();
            LOGGER.infof(
                    "generated the embedded broker's SCRAM credentials, kept in %s",
                    data.resolve(ClientCredentials.FILE));
        }
        EmbeddedKafka broker = EmbeddedKafka.start(data.resolve("kafka"), kafka.port(), user, generated);
        try {
            user.write(data, broker.bootstrapServers());
            // The broker's user first, so that what an operator passes through still has the last word.
            Map<String, String> client = new TreeMap<>(user.securityProperties());
            client.putAll(passThrough);
            return new KafkaRuntime(kafka, broker, new KafkaClients(broker.bootstrapServers(), client));
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /**
     * The durability settings of every topic this process creates ({@code MP_REPLICATION_FACTOR},
     * {@code MP_MIN_INSYNC_REPLICAS}, {@code MP_ALLOW_SINGLE_REPLICA}).
     *
     * @throws Durability.Refused naming the setting, for values that are not numbers or cannot work together
     */
    public static Durability durability(GatewayConfig.Kafka config) {
        return Durability.parse(
                config.replicationFactor(),
                (short) 1,
                config.minInsyncReplicas().orElse(null),
                config.allowSingleReplica().orElse(null));
    }

    /**
     * Asks the cluster how many brokers it has and refuses a replication factor it cannot hold, or one copy on a
     * cluster of 3 or more unless that is allowed: before any topic is created.
     *
     * @throws Durability.Refused saying which setting and what to do
     */
    public void checkDurability() {
        durability.checkCluster(admin, Duration.ofSeconds(30));
    }

    public Durability durability() {
        return durability;
    }

    /**
     * Creates the compacted tables if they are missing; a table that exists is left as it is. A keyed table
     * ({@link TopicLayout#KEYED_TABLES}) whose partitions differ from {@code MP_TABLE_PARTITIONS}, when that is set,
     * refuses the start: a table's partitions cannot change under its records, since a key's records would then be in
     * two partitions and read in no order. Unset, an existing table keeps its count.
     *
     * @throws Durability.Refused naming the table, both counts and the setting
     */
    public void ensureTables(List<String> tables) {
        List<String> created = TopicLayout.createMissing(
                admin, tables.stream().map(layout::table).toList(), Duration.ofSeconds(30));
        for (String table : created) {
            LOGGER.infof("created table topic %s", table);
        }
        // Only the tables this call found: one it created has the count it was created with.
        List<String> keyed = tables.stream()
                .filter(TopicLayout.KEYED_TABLES::contains)
                .filter(t -> !created.contains(t))
                .toList();
        if (keyed.isEmpty()) {
            return;
        }
        Map<String, org.apache.kafka.clients.admin.TopicDescription> described =
                TopicLayout.describe(admin, keyed, Duration.ofSeconds(30));
        for (String table : keyed) {
            int has = described.get(table).partitions().size();
            if (has == layout.tablePartitions()) {
                continue;
            }
            if (tablePartitionsSet.isPresent()) {
                throw new Durability.Refused(table + " has " + has + " partition" + (has == 1 ? "" : "s")
                        + ", not MP_TABLE_PARTITIONS=" + tablePartitionsSet.get()
                        + ": a table's partitions cannot change under its records; set MP_TABLE_PARTITIONS=" + has
                        + " (or unset it) to keep them, or migrate the tables (docs/operations.md#table-partitions)");
            }
            LOGGER.infof(
                    "table %s keeps its %d partition(s) (%d for tables created now; docs/operations.md#table-partitions"
                            + " says how to migrate)",
                    table, has, layout.tablePartitions());
        }
    }

    /** Creates the leases service's topics if they are missing, as the leases app itself would. */
    public void ensureLeaseTopics() {
        for (String topic : TopicLayout.createMissing(admin, layout.leaseTopics(), Duration.ofSeconds(30))) {
            LOGGER.infof("created lease topic %s", topic);
        }
    }

    /** A monitor's log: one partition, kept forever unless the monitor sets {@code limits.retention_seconds}. */
    public NewTopic monitorLogTopic(String monitorId, Long retentionSeconds) {
        return layout.monitorLog(monitorId, retentionSeconds);
    }

    /**
     * How long a create's transaction may stay open: a create killed between writing its definition and committing it
     * holds back {@code mp.monitors}' readers until its retry fences it or the broker aborts it after this long.
     */
    static final int CREATE_TRANSACTION_TIMEOUT_MS = 15_000;

    /**
     * The settings of log producer {@code index} of {@code count} ({@code MP_LOG_PRODUCERS}): idempotent, {@code
     * acks=all}, no linger. When there are several, the last, {@code mp-gateway-rows}, which takes single rows, has one
     * request in flight (docs/adr/0020-one-request-in-flight.md): the rows that arrive while a request is in flight go
     * in the next one, instead of up to five small requests queued at the broker, which handles a connection's requests
     * one at a time anyway. The others, which take batches (the first also the tables and the lease commands), keep
     * Kafka's five.
     */
    static Map<String, Object> logProducerProperties(KafkaClients clients, int index, int count) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_RECORD_BYTES);
        boolean rows = count > 1 && index == count - 1;
        if (rows) {
            p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        }
        return clients.properties(rows ? "mp-gateway-rows" : index == 0 ? "mp-gateway" : "mp-gateway-" + index, p);
    }

    /**
     * A monitor id's create has the transactional id {@code mp-create-<id>} ({@link #createFence}): what a cluster's ACLs
     * must let the gateways write and describe (deploy's {@code ManifestTest} checks that its KafkaUser does).
     */
    public static final String CREATE_PREFIX = "mp-create-";

    /** Opens the fence of one monitor id's create, fencing every earlier create of it (see {@link CreateFence}). */
    public CreateFence createFence(String monitorId) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, CREATE_PREFIX + monitorId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, CREATE_TRANSACTION_TIMEOUT_MS);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, CREATE_TRANSACTION_TIMEOUT_MS);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_RECORD_BYTES);
        return CreateFence.open(new KafkaProducer<>(
                clients.properties(CREATE_PREFIX + monitorId, p), new StringSerializer(), new ByteArraySerializer()));
    }

    /**
     * Start-up repair (docs/adr/0011-atomic-create.md): fences every create whose transaction has been open longer than
     * {@code olderThanMs}, so that a create killed between writing its definition and committing it stops holding
     * back {@code mp.monitors}' readers (every definition committed after it) until the broker's own timeout. Nothing of
     * such a create was in force; its retry completes it. Returns how many it fenced.
     */
    public int fenceAbandonedCreates(long olderThanMs) {
        int fenced = 0;
        try {
            java.util.Collection<org.apache.kafka.clients.admin.TransactionListing> open = admin.listTransactions(
                            new org.apache.kafka.clients.admin.ListTransactionsOptions()
                                    .filterStates(List.of(org.apache.kafka.clients.admin.TransactionState.ONGOING))
                                    .filterOnDuration(olderThanMs))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            for (org.apache.kafka.clients.admin.TransactionListing t : open) {
                if (t.transactionalId().startsWith(CREATE_PREFIX)) {
                    createFence(t.transactionalId().substring(CREATE_PREFIX.length()))
                            .close();
                    fenced++;
                }
            }
        } catch (Exception e) {
            LOGGER.warnf("could not look for creates cut short (%s); their retries complete them", e.toString());
        }
        if (fenced > 0) {
            LOGGER.infof("fenced %d create(s) cut short; their retries complete them", fenced);
        }
        awaitDecidedCreates();
        return fenced;
    }

    /**
     * Waits (at most 30 s) until no create's transaction is still being committed or aborted. A create answered 201 just
     * before a crash has its commit decided but, after the restart, its marker may not be written yet; until it is,
     * {@code mp.monitors}' last stable offset stays below the definition, so a read of the table right after start-up
     * would not find a monitor that was acknowledged.
     */
    private void awaitDecidedCreates() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try {
            while (System.nanoTime() < deadline) {
                boolean deciding = admin
                        .listTransactions(new org.apache.kafka.clients.admin.ListTransactionsOptions()
                                .filterStates(List.of(
                                        org.apache.kafka.clients.admin.TransactionState.PREPARE_COMMIT,
                                        org.apache.kafka.clients.admin.TransactionState.PREPARE_ABORT)))
                        .all()
                        .get(30, TimeUnit.SECONDS)
                        .stream()
                        .anyMatch(t -> t.transactionalId().startsWith(CREATE_PREFIX));
                if (!deciding) {
                    return;
                }
                Thread.sleep(100);
            }
            LOGGER.warn("creates were still being committed after 30 s; reads of mp.monitors may lag until they are");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOGGER.warnf("could not look for creates being committed (%s)", e.toString());
        }
    }

    /** Applies a monitor's new retention to its log. */
    public void setRetention(String monitorId, Long retentionSeconds) {
        org.apache.kafka.common.config.ConfigResource topic = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, Topics.obs(monitorId));
        org.apache.kafka.clients.admin.AlterConfigOp op = new org.apache.kafka.clients.admin.AlterConfigOp(
                new org.apache.kafka.clients.admin.ConfigEntry(
                        TopicConfig.RETENTION_MS_CONFIG, TopicLayout.retentionMs(retentionSeconds)),
                org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET);
        try {
            admin.incrementalAlterConfigs(Map.of(topic, List.of(op))).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.monitorbackbone.protocol.ServerFault("interrupted while changing retention", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new io.monitorbackbone.protocol.ServerFault("Kafka did not change the log's retention: " + e, e);
        }
    }

    /** A member of a consumer group, used only to elect one process among the gateways for a task. */
    public KafkaConsumer<byte[], byte[]> newGroupConsumer(String clientId, String groupId) {
        return new KafkaConsumer<>(
                groupConsumerProperties(clients, clientId, groupId),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    static Map<String, Object> groupConsumerProperties(KafkaClients clients, String clientId, String groupId) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // A dead sweeper is replaced after this long; the broker's minimum is 6 s.
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        // Its one partition is paused and never has a position, and a consumer missing a position polls at its retry
        // backoff: at the client's 100 ms the idle election thread woke about 19 times a second (its poll and the
        // heartbeat thread it signals). A second between retries still rejoins well inside the session timeout.
        c.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, ELECTION_RETRY_BACKOFF_MS);
        return clients.properties(clientId, c);
    }

    /** The election consumer's {@code retry.backoff.ms} (the client's {@code retry.backoff.max.ms} is also 1 s). */
    static final int ELECTION_RETRY_BACKOFF_MS = 1_000;

    /** A consumer for {@link LogReader}'s pool: reads what it was asked for and never waits in Kafka for more. */
    public KafkaConsumer<byte[], byte[]> newReaderConsumer(String clientId) {
        return consumer(readerConsumerProperties(clients, clientId));
    }

    /** The {@link Follower}'s consumer: the tail of the tables and of every monitor's log. */
    public KafkaConsumer<byte[], byte[]> newFollowerConsumer(String clientId) {
        return consumer(consumerProperties(clients, clientId, FOLLOWER_FETCH_MAX_WAIT_MS));
    }

    /** The {@link LeaseClient}'s consumer of the replies. */
    public KafkaConsumer<byte[], byte[]> newLeaseReplyConsumer(String clientId) {
        return consumer(leaseReplyConsumerProperties(clients, clientId));
    }

    static Map<String, Object> leaseReplyConsumerProperties(KafkaClients clients, String clientId) {
        return consumerProperties(clients, clientId, LEASE_REPLIES_FETCH_MAX_WAIT_MS);
    }

    /** @param fetchMaxWaitMs how long the broker holds a fetch that finds nothing new (a marker may end it sooner) */
    public KafkaConsumer<byte[], byte[]> newConsumer(String clientId, int fetchMaxWaitMs) {
        return consumer(consumerProperties(clients, clientId, fetchMaxWaitMs));
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> properties) {
        return new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** A log reader's settings, whatever its client id. */
    static Map<String, Object> readerConsumerProperties(KafkaClients clients, String clientId) {
        return consumerProperties(clients, clientId, READER_FETCH_MAX_WAIT_MS);
    }

    /** Every plain consumer's settings: no group, no commits, read committed, from the start. */
    static Map<String, Object> consumerProperties(KafkaClients clients, String clientId, int fetchMaxWaitMs) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchMaxWaitMs);
        return clients.properties(clientId, c);
    }

    /** What every Kafka client of this process, the hosted Streams apps included, is configured from. */
    public KafkaClients clients() {
        return clients;
    }

    /** How this process lays out the topics it creates. */
    public TopicLayout layout() {
        return layout;
    }

    public Admin admin() {
        return admin;
    }

    /** The producer of the tables and the lease commands, and the first of {@link #logProducers}. */
    public KafkaProducer<String, byte[]> producer() {
        return logProducers.get(0);
    }

    /** The producers observations are appended with, {@link #producer} first: a {@code LogWriter}'s lanes. */
    public List<KafkaProducer<String, byte[]>> logProducers() {
        return logProducers;
    }

    public String bootstrapServers() {
        return clients.bootstrapServers();
    }

    public boolean embedded() {
        return broker != null;
    }

    @Override
    public void close() {
        try {
            for (KafkaProducer<String, byte[]> p : logProducers) {
                p.close(java.time.Duration.ofSeconds(10));
            }
            admin.close(java.time.Duration.ofSeconds(10));
        } finally {
            if (broker != null) {
                broker.close();
            }
        }
    }
}
