package io.monitorbackbone.protocol;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** The closed vocabularies of the protocol. An unknown value is an error, never a silent pass. */
public final class Vocabulary {
    public static final List<String> TIERS = List.of("src", "measured", "derived", "unverified", "falsified");
    public static final List<String> ORIGINS = List.of("human", "agent", "webhook", "probe", "system");
    public static final List<String> VERIFICATIONS =
            List.of("human_verified", "machine_verified", "certified", "reported", "unverified");
    public static final List<String> HORIZONS = List.of("event", "minute", "hour", "day", "week", "month");
    public static final List<String> CAPABILITIES = List.of("observe", "react", "act");
    public static final List<String> VISIBILITIES = List.of("private", "shared", "public");
    public static final List<String> SOURCE_KINDS =
            List.of("shell", "ws", "http", "file", "feed", "cir", "formula", "log");
    public static final List<String> PROTOCOLS = List.of("pull", "http", "mcp");
    public static final List<String> RESET_POLICIES = List.of("earliest", "latest", "none");

    public static final String PROTOCOL_TYPE_PREFIX = "ai.mentu.monitor.";
    public static final String CONFIGURED = PROTOCOL_TYPE_PREFIX + "configured";
    public static final String SUBSCRIBED = PROTOCOL_TYPE_PREFIX + "subscribed";
    public static final String SUBSCRIPTION_RETIRED = PROTOCOL_TYPE_PREFIX + "subscription_retired";
    public static final String LEASE = PROTOCOL_TYPE_PREFIX + "lease";
    public static final String STATE = PROTOCOL_TYPE_PREFIX + "state";
    public static final String BOOKMARK = PROTOCOL_TYPE_PREFIX + "bookmark";
    public static final String REJECTED = PROTOCOL_TYPE_PREFIX + "rejected";
    public static final String CONTRADICTION = PROTOCOL_TYPE_PREFIX + "contradiction";
    public static final String CONTRADICTION_RESOLVED = PROTOCOL_TYPE_PREFIX + "contradiction_resolved";
    /**
     * Not written by anyone: what a reader serves in place of a record of a monitor's log that it cannot decode (a
     * foreign producer's bytes, a damaged record), so the row keeps its seq and is counted instead of being skipped.
     */
    public static final String UNDECODABLE = PROTOCOL_TYPE_PREFIX + "undecodable";

    /**
     * Beyond the protocol (docs/adr/0015-bridge.md): what the bridge writes into a Kafka-sourced monitor's log when its
     * source topic is missing ({@code payload.status} {@code missing}, with {@code topic} and {@code reason}) or there
     * again ({@code present}). Folded into the state's {@code stale_source} gap; not a source contact.
     */
    public static final String BRIDGE_SOURCE = "io.monitorbackbone.bridge.source";

    public static final List<String> PROTOCOL_TYPES = List.of(
            CONFIGURED,
            SUBSCRIBED,
            SUBSCRIPTION_RETIRED,
            LEASE,
            STATE,
            BOOKMARK,
            REJECTED,
            CONTRADICTION,
            CONTRADICTION_RESOLVED,
            UNDECODABLE);

    /**
     * {@code [\w.-]{2,64}} with ASCII word characters, as the protocol's reference regex means it, and not dots only: the
     * id is one REST path segment ({@code ..} is not: clients and the router resolve it away) and names the Kafka topic
     * {@code mp.obs.<id>} (Kafka's characters, well under its 249). Discover announces this pattern.
     */
    public static final Pattern MONITOR_ID = Pattern.compile("^(?!\\.+$)[A-Za-z0-9_.-]{2,64}$");
    /** What a refused id is told. */
    public static final String MONITOR_ID_RULE = "id must match [A-Za-z0-9_.-]{2,64} and not be dots only";

    public static final Pattern TYPE = Pattern.compile("^[a-z0-9]+(\\.[a-z0-9_-]+)+$");
    /**
     * A subject names a thing (a build, a host, a job); it keys leases and their Kafka records, so it is bounded well
     * below Kafka's record size.
     */
    public static final int MAX_SUBJECT_LENGTH = 1024;

    public static final Pattern RULE_THEN = Pattern.compile("^(log|annotate|label|escalate:.+|run:.+|notify:human)$");

    private Vocabulary() {}

    /**
     * Collects {@code field:value} for every value outside its vocabulary; call {@link #throwIfAny()} once all
     * fields of one request were checked, so one answer names every bad value.
     */
    public static final class Check {
        private final List<String> invalid = new ArrayList<>();
        private final Map<String, List<String>> known = new LinkedHashMap<>();

        public Check value(String field, String value, List<String> vocabulary) {
            known.put(field, vocabulary);
            if (value != null && !vocabulary.contains(value)) {
                invalid.add(field + ":" + value);
            }
            return this;
        }

        public Check values(String field, Collection<String> values, List<String> vocabulary) {
            known.put(field, vocabulary);
            if (values != null) {
                values.stream().filter(v -> !vocabulary.contains(v)).forEach(v -> invalid.add(field + ":" + v));
            }
            return this;
        }

        public Check pattern(String field, String value, Pattern pattern) {
            if (value != null && !pattern.matcher(value).matches()) {
                invalid.add(field + ":" + value);
            }
            return this;
        }

        public List<String> invalid() {
            return invalid;
        }

        public void throwIfAny() {
            if (!invalid.isEmpty()) {
                throw ProtocolException.of(
                                ErrorCode.UNKNOWN_VOCABULARY, "invalid values: " + String.join(", ", invalid))
                        .with("invalid", invalid)
                        .with("known", known);
            }
        }
    }
}
