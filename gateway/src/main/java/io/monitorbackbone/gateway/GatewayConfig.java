package io.monitorbackbone.gateway;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The server's settings; application.properties binds each to its environment variable. */
@ConfigMapping(prefix = "mp")
public interface GatewayConfig {

    /** Where the embedded broker keeps its logs (under {@code kafka/}). */
    @WithDefault("./data")
    Path data();

    Kafka kafka();

    /** Observations kept in memory per monitor, so reads near the head need no fetch from Kafka; 0 turns it off. */
    @WithDefault("256")
    int tailCacheEntries();

    /**
     * How long this gateway still follows a monitor's log that nothing of it has needed (no pull, stream, parked pull,
     * MCP resource subscription or lease call): then it stops fetching the log's writes.
     */
    @WithDefault("60s")
    java.time.Duration followIdle();

    /** What this process runs, a comma list of gateway, projector, leases ({@link Roles}, {@code MP_ROLES}). */
    @WithDefault(Roles.ALL)
    String roles();

    /**
     * This process's id among the processes on one cluster ({@link InstanceId}, {@code MP_INSTANCE_ID}); unset means
     * host name + "-" + HTTP port.
     */
    Optional<String> instanceId();

    /** Enables {@code /mp/v0/admin/*} when set. */
    Optional<String> adminToken();

    /** When set, creating a monitor needs it and the monitor is attested. */
    Optional<String> registrationToken();

    /** Web origins allowed to call the API from a browser. */
    Optional<List<String>> allowOrigin();

    /** Extra Host names accepted on a loopback listener. */
    Optional<List<String>> allowHost();

    Http http();

    /** Webhook push ({@code protocol: "http"} subscriptions, docs/adr/0016-webhook-push.md). */
    Push push();

    /**
     * How long a stopping server keeps answering after its readiness went DOWN, before it wakes parked pulls and
     * waits for what is in flight: the time a load balancer needs to notice.
     */
    @WithDefault("0s")
    java.time.Duration shutdownDelay();

    interface Push {
        /**
         * Host names or addresses a push sink may name although they are loopback, private or link-local
         * ({@code MP_PUSH_ALLOW_HOSTS}); {@code *} allows every one. Unset: such sinks are refused at subscribe.
         */
        Optional<List<String>> allowHosts();

        /** The first retry's delay; each further one doubles it, up to {@link #retryMax()}, with jitter. */
        @WithDefault("1s")
        java.time.Duration retryBase();

        @WithDefault("5m")
        java.time.Duration retryMax();

        /** How long one delivery may take (connect and answer) before it counts as failed. */
        @WithDefault("10s")
        java.time.Duration timeout();
    }

    /** The HTTP listener's connection limits (see {@code http/ConnectionGuard}). */
    interface Http {
        /**
         * A connection with no request in progress (just opened, or answered and kept alive) is closed after this,
         * however slowly it sends a request head.
         */
        @WithDefault("30s")
        java.time.Duration idleTimeout();

        /** A request's body must have arrived this long after its head; the connection is closed otherwise. */
        @WithDefault("30s")
        java.time.Duration readTimeout();

        /** Open connections past this are answered 503 and closed. */
        @WithDefault("4096")
        int maxConnections();
    }

    interface Kafka {
        /** Port of the embedded broker; unused when bootstrap servers are given. */
        @WithDefault("9130")
        int port();

        /** An existing cluster; when set no broker is started. */
        Optional<String> bootstrapServers();

        /**
         * Replication factor of every topic the server creates ({@code MP_REPLICATION_FACTOR}); -1 takes the broker's
         * default. Read with the two below as one {@link io.monitorbackbone.binding.Durability}, which words a value
         * that is not a number.
         */
        @WithDefault("1")
        String replicationFactor();

        /** {@code min.insync.replicas} of every topic the server creates; unset leaves the broker's default. */
        Optional<String> minInsyncReplicas();

        /** {@code true}: a replication factor of 1 is meant even on a cluster of 3 or more brokers. */
        Optional<String> allowSingleReplica();

        /**
         * Partitions of the compacted tables the server creates ({@code TopicLayout.DEFAULT_TABLE_PARTITIONS} when
         * unset). Set, an existing keyed table with another count refuses the start; unset, it keeps its count.
         */
        java.util.Optional<Integer> tablePartitions();

        /**
         * Partitions of {@code mp.state} should the hosted projector be the one to create it; a process creates it with
         * the tables first ({@link #tablePartitions}), so this matters only where that did not happen. The fold spreads
         * over the monitors' logs whatever it is (docs/adr/0018).
         */
        @WithDefault("8")
        int projectorPartitions();

        /**
         * How often the leases service commits its transaction: a lease reply is visible (read committed) only then,
         * so this bounds the time a claim waits; shorter costs a transaction per interval under load.
         */
        @WithDefault("10")
        long leaseCommitMs();

        /** Partitions of the lease command and reply topics: how far the leases service can spread. */
        @WithDefault("6")
        int leasePartitions();

        /**
         * Producers the gateway appends observations with, each a connection of its own: batch publishes take all but
         * the last in turn, the tables' writes the first, single rows the last, with one request in flight
         * (docs/adr/0019-log-producers.md, docs/adr/0020-one-request-in-flight.md). One producer takes everything, five
         * requests in flight. 1 to {@link #MAX_LOG_PRODUCERS}.
         */
        @WithDefault("3")
        int logProducers();

        int MAX_LOG_PRODUCERS = 8;
    }
}
