package io.monitorbackbone.gateway;

import io.quarkus.runtime.PreventFurtherStepsException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * What is checked before anything starts: the ports this process will listen on. A port that is taken is one clear
 * line on stderr and exit status 1, before a broker is started or a topic touched (Quarkus prints the message of a
 * {@link PreventFurtherStepsException} alone, without a stack trace).
 */
final class StartChecks {

    private StartChecks() {}

    static void portsFree(String httpHost, int httpPort, boolean embeddedBroker, int kafkaPort) {
        if (httpPort > 0 && !free(httpHost, httpPort)) {
            throw refused(
                    "monitor-backbone cannot start: HTTP port " + httpPort + " on " + httpHost
                            + " is already in use (is another server running?); choose another with MP_PORT or ./mp serve --port");
        }
        if (embeddedBroker && kafkaPort > 0 && !free("127.0.0.1", kafkaPort)) {
            throw refused(
                    "monitor-backbone cannot start: port " + kafkaPort + " on 127.0.0.1 for the"
                            + " embedded Kafka broker is already in use (is another ./mp serve running? then share its broker with"
                            + " KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:" + kafkaPort
                            + " and the MP_KAFKA_* credentials that ./mp kafka-config prints); choose another with MP_KAFKA_PORT or ./mp serve --kafka-port");
        }
    }

    /** The management interface (health and metrics) listens on a port of its own. */
    static void managementPortFree(String host, int port) {
        if (port > 0 && !free(host, port)) {
            throw refused("monitor-backbone cannot start: management port " + port + " on " + host
                    + " (health and metrics) is already in use (is another server running?); choose another with"
                    + " MP_MANAGEMENT_PORT or ./mp serve --management-port");
        }
    }

    /** What this process runs ({@code MP_ROLES}); an unknown role, or none, is refused. */
    static Roles roles(String value, java.util.Map<String, String> env) {
        if (env.containsKey("MP_HOST_PROJECTOR")) {
            throw refused(
                    "monitor-backbone cannot start: MP_HOST_PROJECTOR is replaced by MP_ROLES (MP_ROLES=gateway,leases"
                            + " runs no projector); unset it");
        }
        try {
            return Roles.parse(value);
        } catch (IllegalArgumentException e) {
            throw refused("monitor-backbone cannot start: " + e.getMessage());
        }
    }

    /** This process's instance id ({@code MP_INSTANCE_ID}, else host name and port); one Kafka would refuse is refused. */
    static String instanceId(java.util.Optional<String> configured, int httpPort) {
        try {
            return InstanceId.resolve(configured, httpPort);
        } catch (IllegalArgumentException e) {
            throw refused("monitor-backbone cannot start: " + e.getMessage());
        }
    }

    /** The producers observations are appended with ({@code MP_LOG_PRODUCERS}): 1 to {@code MAX_LOG_PRODUCERS}. */
    static void logProducers(int producers) {
        if (producers < 1 || producers > GatewayConfig.Kafka.MAX_LOG_PRODUCERS) {
            throw refused("monitor-backbone cannot start: MP_LOG_PRODUCERS is " + producers + "; it must be 1 to "
                    + GatewayConfig.Kafka.MAX_LOG_PRODUCERS);
        }
    }

    /** The Kafka client properties passed through ({@code MP_KAFKA_*}): one the server sets per client is refused. */
    static void kafkaClientProperties(java.util.Map<String, String> env) {
        try {
            io.monitorbackbone.binding.KafkaClients.passThroughFrom(env);
        } catch (IllegalArgumentException e) {
            throw refused("monitor-backbone cannot start: " + e.getMessage());
        }
    }

    /**
     * The durability settings ({@code MP_REPLICATION_FACTOR}, {@code MP_MIN_INSYNC_REPLICAS},
     * {@code MP_ALLOW_SINGLE_REPLICA}): a value that is not one, or a min ISR outside 1 to the replication factor, is
     * refused before anything starts; so is more than one copy on the embedded broker, which is one broker.
     */
    static io.monitorbackbone.binding.Durability durability(GatewayConfig.Kafka kafka) {
        try {
            io.monitorbackbone.binding.Durability durability =
                    io.monitorbackbone.gateway.kafka.KafkaRuntime.durability(kafka);
            if (kafka.bootstrapServers().isEmpty()) {
                java.util.Optional<String> refused = durability.refusal(1);
                if (refused.isPresent()) {
                    throw new io.monitorbackbone.binding.Durability.Refused(
                            refused.get() + " (the embedded broker; a cluster is KAFKA_BOOTSTRAP_SERVERS)");
                }
            }
            return durability;
        } catch (io.monitorbackbone.binding.Durability.Refused e) {
            throw refused("monitor-backbone cannot start: " + e.getMessage());
        }
    }

    /**
     * Starts what asks the cluster about the durability settings; a cluster that cannot or should not take them (too
     * few brokers, or one copy on 3 or more) ends the start with the reason as one line.
     */
    static <T> T onTheCluster(java.util.function.Supplier<T> start) {
        try {
            return start.get();
        } catch (io.monitorbackbone.binding.Durability.Refused e) {
            throw refused("monitor-backbone cannot start: " + e.getMessage());
        }
    }

    /**
     * Wrapped on purpose: a bare PreventFurtherStepsException from a start-up observer is swallowed as a command-mode
     * stop and the process would wait forever; as the root cause of a failed start, Quarkus prints its message alone
     * on stderr and exits with its status.
     */
    private static RuntimeException refused(String message) {
        return new IllegalStateException(message, new PreventFurtherStepsException(message, 1));
    }

    /** Whether a listener could bind there now; an address that does not resolve is left to the server's own bind. */
    static boolean free(String host, int port) {
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            return true;
        }
        try (ServerSocket socket = new ServerSocket()) {
            // As the servers bind: a port in TIME_WAIT is free, one with a listener is not.
            socket.setReuseAddress(true);
            socket.bind(address);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
