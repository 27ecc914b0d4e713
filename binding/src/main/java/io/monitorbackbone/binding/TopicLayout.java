package io.monitorbackbone.binding;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * How the server's topics ({@link Topics}) are laid out, and the one place they are created. Every role creates what it
 * needs at start if it is missing and leaves an existing topic as it is, so whichever role starts first decides.
 *
 * @param replicationFactor of every topic created; -1 takes the broker's default
 * @param minInsyncReplicas {@code min.insync.replicas} of every topic created; {@link Durability#UNSET} (0) takes
 *                          the broker's default
 * @param tablePartitions   partitions of the gateway's compacted tables
 * @param leasePartitions   partitions of the lease topics: how far the leases service can spread
 */
public record TopicLayout(short replicationFactor, int minInsyncReplicas, int tablePartitions, int leasePartitions) {
    /**
     * A 1 MiB body can become a record several times its size (headers, provenance, a rejected row's raw copy, a
     * configured row's before and after), so monitors' logs, the tables and the producers that write them allow 8 MiB
     * instead of Kafka's 1 MiB.
     */
    public static final int MAX_RECORD_BYTES = 8 * 1024 * 1024;

    /**
     * Partitions of the compacted tables when {@code MP_TABLE_PARTITIONS} is not set: enough for the brokers of a
     * cluster to share a table's writes and for a table to outgrow one partition, few enough that a gateway's
     * catch-up (one offsets request over them) stays one round trip.
     */
    public static final int DEFAULT_TABLE_PARTITIONS = 6;

    /** Partitions of the lease topics when {@code MP_LEASE_PARTITIONS} is not set: how far the leases spread. */
    public static final int DEFAULT_LEASE_PARTITIONS = 6;

    /**
     * The tables the gateways write keyed by id ({@code mp.monitors}, {@code mp.subscriptions}, {@code mp.cursors}):
     * a key's records must all be in the partition its key hashes to, so their partitions never change under them.
     */
    public static final List<String> KEYED_TABLES = List.of(Topics.MONITORS, Topics.SUBSCRIPTIONS, Topics.CURSORS);

    public TopicLayout {
        if (replicationFactor < 1 && replicationFactor != -1) {
            throw new IllegalArgumentException(
                    "replication factor must be at least 1 (or -1 for the broker's default), not " + replicationFactor);
        }
        if (minInsyncReplicas < 0 || (replicationFactor != -1 && minInsyncReplicas > replicationFactor)) {
            throw new IllegalArgumentException("min.insync.replicas must be between 1 and the replication factor "
                    + replicationFactor + " (or 0 for the broker's default), not " + minInsyncReplicas);
        }
        if (tablePartitions < 1 || leasePartitions < 1) {
            throw new IllegalArgumentException(
                    "partitions must be at least 1, not " + tablePartitions + " and " + leasePartitions);
        }
    }

    /** The broker's {@code min.insync.replicas} on every topic. */
    public TopicLayout(short replicationFactor, int tablePartitions, int leasePartitions) {
        this(replicationFactor, Durability.UNSET, tablePartitions, leasePartitions);
    }

    /** Topics laid out with these durability settings. */
    public static TopicLayout of(Durability durability, int tablePartitions, int leasePartitions) {
        return new TopicLayout(
                durability.replicationFactor(), durability.minInsyncReplicas(), tablePartitions, leasePartitions);
    }

    /**
     * A compacted table of the gateway's ({@link Topics#MONITORS}, ...), or the sweeper's topic, which has one
     * partition whatever the table partitions: its consumer group elects the one gateway that holds it.
     */
    public NewTopic table(String name) {
        return topic(
                name,
                Topics.SWEEPER.equals(name) ? 1 : tablePartitions,
                Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG,
                        TopicConfig.CLEANUP_POLICY_COMPACT,
                        TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        String.valueOf(MAX_RECORD_BYTES)));
    }

    /** A monitor's log: one partition, kept forever unless the monitor sets {@code limits.retention_seconds}. */
    public NewTopic monitorLog(String monitorId, Long retentionSeconds) {
        return topic(
                Topics.obs(monitorId),
                1,
                Map.of(
                        TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        String.valueOf(MAX_RECORD_BYTES),
                        TopicConfig.RETENTION_MS_CONFIG,
                        retentionMs(retentionSeconds)));
    }

    /**
     * The partition a keyed record of a table belongs in when the table has {@code partitions}: where the producers'
     * default partitioner puts it (murmur2 of the key's UTF-8 bytes).
     */
    public static int partitionOf(String key, int partitions) {
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
                        key.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                % partitions;
    }

    /** {@code retention.ms} of a monitor's log: -1 (forever) unless the monitor sets a retention. */
    public static String retentionMs(Long retentionSeconds) {
        return retentionSeconds == null ? "-1" : String.valueOf(retentionSeconds * 1000);
    }

    /** The leases service's topics: commands and replies, and the compacted lease table and subject marks. */
    public List<NewTopic> leaseTopics() {
        Map<String, String> compacted = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        return List.of(
                topic(Topics.LEASE_COMMANDS, leasePartitions, Map.of()),
                topic(Topics.LEASE_REPLIES, leasePartitions, Map.of()),
                topic(Topics.LEASES, leasePartitions, compacted),
                topic(Topics.LEASE_SUBJECTS, leasePartitions, compacted));
    }

    /** The projector's compacted {@link Topics#STATE}, as a projector running on its own creates it. */
    public NewTopic state(int partitions) {
        return topic(
                Topics.STATE,
                partitions,
                Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
    }

    /** The bridge's dead letters ({@link Topics#BRIDGE_DEAD_LETTERS}): the table partitions, records as large as a log's. */
    public NewTopic bridgeDeadLetters() {
        return topic(
                Topics.BRIDGE_DEAD_LETTERS,
                tablePartitions,
                Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, String.valueOf(MAX_RECORD_BYTES)));
    }

    private NewTopic topic(String name, int partitions, Map<String, String> configs) {
        Optional<Short> replication = replicationFactor == -1 ? Optional.empty() : Optional.of(replicationFactor);
        NewTopic topic = new NewTopic(name, Optional.of(partitions), replication);
        Map<String, String> all = new java.util.TreeMap<>(configs);
        if (minInsyncReplicas != Durability.UNSET) {
            all.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, String.valueOf(minInsyncReplicas));
        }
        return all.isEmpty() ? topic : topic.configs(all);
    }

    /**
     * Creates a topic unless it exists; an existing one is left as it is.
     *
     * @return whether this call created it
     * @throws ExecutionException whatever else Kafka answered (its cause says what)
     */
    public static boolean createIfMissing(Admin admin, NewTopic topic, Duration timeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        try {
            admin.createTopics(List.of(topic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Creates each topic unless it exists, for a role's start: anything but "exists" ends the start.
     *
     * @return the names of the topics this call created
     */
    public static List<String> createMissing(Admin admin, List<NewTopic> topics, Duration timeout) {
        List<String> created = new ArrayList<>();
        for (NewTopic topic : topics) {
            try {
                if (createIfMissing(admin, topic, timeout)) {
                    created.add(topic.name());
                }
            } catch (ExecutionException e) {
                throw new IllegalStateException(
                        "cannot create topic " + topic.name() + ": " + e.getCause(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while creating topic " + topic.name(), e);
            } catch (TimeoutException e) {
                throw new IllegalStateException("Kafka did not create topic " + topic.name() + " in " + timeout, e);
            }
        }
        return created;
    }

    /**
     * The topics' descriptions. A topic created a moment ago (by this process or another) may not be known yet to the
     * broker asked, its metadata on its way, so an unknown topic is asked again until {@code timeout}.
     */
    public static Map<String, TopicDescription> describe(Admin admin, List<String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return admin.describeTopics(topics).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot describe " + topics + ": " + e.getCause(), e.getCause());
                }
            } catch (TimeoutException e) {
                throw new IllegalStateException("Kafka did not describe " + topics + " in " + timeout, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while describing " + topics, e);
            }
            try {
                Thread.sleep(200); // the topic's metadata reaching this broker: a backoff, not a wait for a condition
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while describing " + topics, e);
            }
        }
    }
}
