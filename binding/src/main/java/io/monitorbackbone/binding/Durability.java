package io.monitorbackbone.binding;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.config.TopicConfig;

/**
 * How many copies of every topic the server creates Kafka keeps, and how many must have a write before it is
 * acknowledged: the gateway's tables and monitors' logs, the lease topics, {@code mp.state}, and the internal topics of
 * the leases and projector Streams apps. Every role of every process reads the same three settings.
 *
 * <p>At start each role that creates topics asks the cluster how many brokers it has ({@link #checkCluster}): a
 * replication factor above that count is refused with the settings' names rather than with Kafka's error at the
 * first create, and on a cluster of {@value #MANY_BROKERS} or more a replication factor of 1 (every topic on one
 * broker, lost with its disk) is refused unless {@value #ALLOW_SINGLE_REPLICA} says it is meant.
 *
 * @param replicationFactor  of every topic created; -1 leaves it to the broker's {@code default.replication.factor}
 *                           (and so is not checked against the cluster)
 * @param minInsyncReplicas  {@code min.insync.replicas} of every topic created; {@link #UNSET} leaves the broker's
 * @param allowSingleReplica a replication factor of 1 is meant even on a cluster of several brokers
 */
public record Durability(short replicationFactor, int minInsyncReplicas, boolean allowSingleReplica) {
    public static final String REPLICATION_FACTOR = "MP_REPLICATION_FACTOR";
    public static final String MIN_INSYNC_REPLICAS = "MP_MIN_INSYNC_REPLICAS";
    public static final String ALLOW_SINGLE_REPLICA = "MP_ALLOW_SINGLE_REPLICA";
    /** No {@code min.insync.replicas} on the topics: the broker's default applies. */
    public static final int UNSET = 0;
    /** From this many brokers on, a replication factor of 1 needs {@value #ALLOW_SINGLE_REPLICA}. */
    public static final int MANY_BROKERS = 3;
    /** Kafka Streams' {@code STREAMS_REPLICATION_FACTOR} (this module has no Streams). */
    static final String STREAMS_REPLICATION_FACTOR = "replication.factor";
    /** Kafka Streams' {@code StreamsConfig.TOPIC_PREFIX}: a topic config its internal topics are created with. */
    static final String STREAMS_TOPIC_PREFIX = "topic.";

    /** A start refused for its durability settings; the message names the setting and what to do. */
    public static final class Refused extends IllegalStateException {
        public Refused(String message) {
            super(message);
        }
    }

    public Durability {
        if (replicationFactor < 1 && replicationFactor != -1) {
            throw new Refused(REPLICATION_FACTOR + " must be at least 1 (or -1 for the broker's default), not "
                    + replicationFactor);
        }
        if (minInsyncReplicas < 0) {
            throw new Refused(MIN_INSYNC_REPLICAS + " must be at least 1, not " + minInsyncReplicas);
        }
        if (minInsyncReplicas != UNSET && replicationFactor != -1 && minInsyncReplicas > replicationFactor) {
            throw new Refused(MIN_INSYNC_REPLICAS + " is " + minInsyncReplicas + " but " + REPLICATION_FACTOR + " is "
                    + replicationFactor + ": no write could ever be acknowledged; set " + MIN_INSYNC_REPLICAS
                    + " between 1 and " + replicationFactor + ", or unset it for the broker's default");
        }
    }

    /** A replication factor and nothing else: the broker's {@code min.insync.replicas}, a single replica not allowed. */
    public static Durability of(short replicationFactor) {
        return new Durability(replicationFactor, UNSET, false);
    }

    /**
     * The settings as written in the environment (or configuration), each null or blank when not set.
     *
     * @param replicationFactor  {@value #REPLICATION_FACTOR}; unset is {@code defaultReplicationFactor}
     * @param minInsyncReplicas  {@value #MIN_INSYNC_REPLICAS}; unset is the broker's default
     * @param allowSingleReplica {@value #ALLOW_SINGLE_REPLICA}: {@code true} or {@code false}; unset is false
     * @throws Refused naming the setting, for a value that is not one or a combination that cannot work
     */
    public static Durability parse(
            String replicationFactor,
            short defaultReplicationFactor,
            String minInsyncReplicas,
            String allowSingleReplica) {
        short rf = blank(replicationFactor)
                ? defaultReplicationFactor
                : (short) integer(REPLICATION_FACTOR, replicationFactor, Short.MIN_VALUE, Short.MAX_VALUE);
        int minIsr = blank(minInsyncReplicas)
                ? UNSET
                : integer(MIN_INSYNC_REPLICAS, minInsyncReplicas, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (!blank(minInsyncReplicas) && minIsr < 1) {
            throw new Refused(MIN_INSYNC_REPLICAS + " must be at least 1, not " + minIsr
                    + " (unset it for the broker's default)");
        }
        boolean allow;
        if (blank(allowSingleReplica) || allowSingleReplica.trim().equalsIgnoreCase("false")) {
            allow = false;
        } else if (allowSingleReplica.trim().equalsIgnoreCase("true")) {
            allow = true;
        } else {
            throw new Refused(ALLOW_SINGLE_REPLICA + " must be true or false, not '" + allowSingleReplica + "'");
        }
        return new Durability(rf, minIsr, allow);
    }

    /** The three settings from an environment ({@code MP_REPLICATION_FACTOR}, ...). */
    public static Durability fromEnvironment(Map<String, String> env, short defaultReplicationFactor) {
        return parse(
                env.get(REPLICATION_FACTOR),
                defaultReplicationFactor,
                env.get(MIN_INSYNC_REPLICAS),
                env.get(ALLOW_SINGLE_REPLICA));
    }

    /** The same settings with another replication factor (a role's own override of it). */
    public Durability withReplicationFactor(short factor) {
        return new Durability(factor, minInsyncReplicas, allowSingleReplica);
    }

    /**
     * What a Streams app needs so that its internal topics (changelogs, repartition topics) are laid out the same:
     * {@code replication.factor}, and {@code topic.min.insync.replicas} when set.
     */
    public Map<String, Object> streamsConfigs() {
        return minInsyncReplicas == UNSET
                ? Map.of(STREAMS_REPLICATION_FACTOR, (int) replicationFactor)
                : Map.of(
                        STREAMS_REPLICATION_FACTOR,
                        (int) replicationFactor,
                        STREAMS_TOPIC_PREFIX + TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                        String.valueOf(minInsyncReplicas));
    }

    /**
     * The decision, given how many brokers the cluster has: empty when these settings may create topics there, else
     * why not and what to set.
     */
    public Optional<String> refusal(int brokers) {
        if (replicationFactor == -1 || brokers < 1) {
            return Optional.empty();
        }
        if (replicationFactor > brokers) {
            return Optional.of(REPLICATION_FACTOR + " is " + replicationFactor + " but the Kafka cluster has "
                    + brokers(brokers) + ", which cannot hold " + replicationFactor + " copies of a topic; set "
                    + REPLICATION_FACTOR + " to at most " + brokers
                    + (minInsyncReplicas > brokers ? " and " + MIN_INSYNC_REPLICAS + " to at most " + brokers : ""));
        }
        if (replicationFactor == 1 && brokers >= MANY_BROKERS && !allowSingleReplica) {
            return Optional.of(REPLICATION_FACTOR + " is 1 on a Kafka cluster of " + brokers(brokers)
                    + ": every topic the server creates would have one copy, lost with the broker that holds it; set "
                    + REPLICATION_FACTOR + "=3 (and " + MIN_INSYNC_REPLICAS + "=2), or " + ALLOW_SINGLE_REPLICA
                    + "=true if one copy is meant");
        }
        return Optional.empty();
    }

    /**
     * Asks the cluster how many brokers it has (registered ones, a broker that is down at the moment included, so that
     * a role restarted during an outage starts as it did before) and refuses what {@link #refusal} refuses.
     *
     * @throws Refused when these settings cannot or should not create topics on this cluster
     * @throws IllegalStateException when the cluster did not answer
     */
    public void checkCluster(Admin admin, Duration timeout) {
        if (replicationFactor == -1) {
            return;
        }
        int brokers;
        try {
            brokers = admin.describeCluster(new DescribeClusterOptions()
                            .includeFencedBrokers(true)
                            .timeoutMs((int) timeout.toMillis()))
                    .nodes()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .size();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking Kafka how many brokers it has", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Kafka did not say how many brokers it has: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("Kafka did not say how many brokers it has within " + timeout, e);
        }
        Optional<String> refused = refusal(brokers);
        if (refused.isPresent()) {
            throw new Refused(refused.get());
        }
    }

    private static String brokers(int n) {
        return n == 1 ? "1 broker" : n + " brokers";
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    private static int integer(String name, String value, int min, int max) {
        try {
            long v = Long.parseLong(value.trim());
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return (int) v;
        } catch (NumberFormatException e) {
            throw new Refused(name + " must be an integer, not '" + value + "'");
        }
    }
}
