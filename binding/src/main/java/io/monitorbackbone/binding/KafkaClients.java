package io.monitorbackbone.binding;

import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * What every Kafka client of every role is configured from: the cluster, and client properties passed through from
 * the environment ({@code MP_KAFKA_SECURITY_PROTOCOL=SSL} becomes {@code security.protocol=SSL}). A role adds its own
 * settings (acks, isolation, timeouts) with {@link #properties}; a property passed through is applied over them, as an
 * operator's last word, except the ones that say who a client is, which only the server chooses.
 *
 * @param bootstrapServers the cluster
 * @param passThrough      further client properties, applied to every admin, producer, consumer and Streams client
 */
public record KafkaClients(String bootstrapServers, Map<String, String> passThrough) {
    /** Every environment variable under this prefix is a client property, except {@link #NOT_CLIENT_PROPERTIES}. */
    public static final String ENV_PREFIX = "MP_KAFKA_";
    /** Server settings that happen to share the prefix: {@code MP_KAFKA_PORT} is the embedded broker's port. */
    public static final Set<String> NOT_CLIENT_PROPERTIES = Set.of("MP_KAFKA_PORT");
    /**
     * Properties the server sets per client and that must not be shared by all of them: the cluster has its own
     * variable, and a shared id, group or transactional id would make the clients fence or impersonate each other.
     */
    public static final Set<String> RESERVED = Set.of(
            "bootstrap.servers",
            "client.id",
            "group.id",
            "group.instance.id",
            "transactional.id",
            "application.id",
            "key.serializer",
            "value.serializer",
            "key.deserializer",
            "value.deserializer");

    public KafkaClients {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("the Kafka bootstrap servers are required (KAFKA_BOOTSTRAP_SERVERS)");
        }
        if (passThrough == null) {
            throw new IllegalArgumentException("passThrough is null; pass an empty map");
        }
        for (Map.Entry<String, String> e : passThrough.entrySet()) {
            if (e.getKey() == null || e.getKey().isBlank() || e.getValue() == null) {
                throw new IllegalArgumentException("a Kafka client property needs a name and a value: " + e);
            }
            if (RESERVED.contains(e.getKey())) {
                throw reserved(e.getKey());
            }
        }
        passThrough = Map.copyOf(passThrough);
    }

    /** The cluster and nothing passed through. */
    public static KafkaClients of(String bootstrapServers) {
        return new KafkaClients(bootstrapServers, Map.of());
    }

    /** The cluster, and every {@code MP_KAFKA_<NAME>} variable of the environment as client property {@code <name>}. */
    public static KafkaClients of(String bootstrapServers, Map<String, String> env) {
        return new KafkaClients(bootstrapServers, passThroughFrom(env));
    }

    /**
     * The client properties an environment passes through: {@code MP_KAFKA_<NAME>=v} becomes {@code <name>=v} with
     * {@code <name>} lower-cased and {@code _} turned into {@code .}.
     *
     * @throws IllegalArgumentException naming the variable, for a property in {@link #RESERVED}
     */
    public static Map<String, String> passThroughFrom(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            String k = e.getKey();
            if (k.startsWith(ENV_PREFIX) && k.length() > ENV_PREFIX.length() && !NOT_CLIENT_PROPERTIES.contains(k)) {
                String name = k.substring(ENV_PREFIX.length())
                        .toLowerCase(Locale.ROOT)
                        .replace('_', '.');
                if (RESERVED.contains(name)) {
                    throw new IllegalArgumentException(k + ": " + reserved(name).getMessage());
                }
                out.put(name, e.getValue());
            }
        }
        return out;
    }

    private static IllegalArgumentException reserved(String name) {
        return new IllegalArgumentException(
                "the Kafka client property " + name + " is set by the server per client and cannot be passed through");
    }

    /**
     * One client's properties: the cluster, its id (none for a Streams client, which names its own), the role's own
     * settings, then what is passed through.
     *
     * @param clientId null to leave {@code client.id} unset
     */
    public Map<String, Object> properties(String clientId, Map<String, ?> own) {
        Map<String, Object> p = new TreeMap<>(own);
        p.put("bootstrap.servers", bootstrapServers);
        if (clientId != null) {
            p.put("client.id", clientId);
        }
        p.putAll(passThrough);
        return p;
    }

    /** A Streams client's properties: its own settings (application id, guarantees), then what is passed through. */
    public Properties streams(Map<String, ?> own) {
        Properties p = new Properties();
        p.putAll(properties(null, own));
        return p;
    }
}
