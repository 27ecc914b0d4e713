package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Provenance;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A monitor whose source is a Kafka topic (docs/adr/0015-bridge.md): {@code source: {kind: "feed", ref:
 * "kafka:<topic>", settings: {…}}}. {@link #parse} checks the settings and fills in their defaults, so the stored and
 * served source says exactly what the bridge does with each record.
 *
 * <p>A mapping ({@code type}, {@code subject}, {@code time}) is one of {@code const:<text>}, {@code key} (the record
 * key as UTF-8), {@code header:<name>}, {@code ce:<attribute>} (a CloudEvents attribute of a CloudEvents record),
 * {@code /<json pointer>} (into the JSON value, or a CloudEvent's data), or {@code timestamp} (the record's timestamp,
 * {@code time} only). Null means the format's default: a CloudEvent's own {@code type}, {@code subject} and {@code
 * time}; otherwise the monitor's one declared type, the record key and the record timestamp.
 *
 * @param topic   the Kafka topic read
 * @param format  one of {@link #FORMATS}
 * @param start   {@code earliest}, {@code latest}, or an RFC 3339 time: where a partition the bridge has never read
 *                starts
 * @param tags    header names whose values become tags
 */
public record KafkaSource(
        String topic,
        String format,
        Mapping type,
        Mapping subject,
        Mapping time,
        String actor,
        String origin,
        String tier,
        String verification,
        String start,
        List<String> tags) {

    public static final String REF_PREFIX = "kafka:";
    public static final String KIND = "feed";
    public static final List<String> FORMATS =
            List.of("auto", "json", "cloudevents-binary", "cloudevents-structured", "text");
    public static final List<String> SETTINGS =
            List.of("format", "type", "subject", "time", "actor", "origin", "tier", "verification", "start", "tags");
    /** Kafka's topic names; the server's own ({@code mp.*}) are not sources: a monitor's log would feed itself. */
    private static final Pattern TOPIC = Pattern.compile("^(?!\\.+$)[A-Za-z0-9._-]{1,249}$");

    public static final int MAX_TAGS = 32;

    /** Where a mapped value comes from. */
    public enum From {
        CONST,
        KEY,
        HEADER,
        CE,
        POINTER,
        TIMESTAMP
    }

    /** One mapping; {@code arg} is the constant, header name, attribute or pointer (null for key and timestamp). */
    public record Mapping(From from, String arg) {
        public String text() {
            return switch (from) {
                case CONST -> "const:" + arg;
                case KEY -> "key";
                case HEADER -> "header:" + arg;
                case CE -> "ce:" + arg;
                case POINTER -> arg;
                case TIMESTAMP -> "timestamp";
            };
        }
    }

    /** Whether a source object names a Kafka topic: {@code kind: feed} and a {@code kafka:} ref. */
    public static boolean names(JsonNode source) {
        return source != null
                && KIND.equals(Json.text(source, "kind"))
                && Json.text(source, "ref") != null
                && Json.text(source, "ref").startsWith(REF_PREFIX);
    }

    /** The bridge a stored monitor source describes, or null when it is not a Kafka feed. */
    public static KafkaSource of(JsonNode source, List<String> declaredTypes) {
        return names(source) ? parse(source, declaredTypes) : null;
    }

    /**
     * Checks a Kafka feed source and returns its settings with every default filled in.
     *
     * @param declaredTypes the monitor's {@code types}: a constant type must be one of them, and the default type of a
     *                      record that is no CloudEvent is the only one
     */
    public static KafkaSource parse(JsonNode source, List<String> declaredTypes) {
        String ref = Json.text(source, "ref");
        String topic = ref.substring(REF_PREFIX.length());
        if (!TOPIC.matcher(topic).matches()) {
            throw invalid("source.ref", "source.ref must be kafka:<topic>, a Kafka topic name of [A-Za-z0-9._-]");
        }
        if (topic.startsWith("mp.")) {
            throw invalid(
                    "source.ref",
                    "the server's own topics (mp.*) cannot be a source: a monitor's log would be read into a log");
        }
        JsonNode raw = source.get("settings");
        if (raw == null || raw.isNull()) {
            raw = Json.object();
        }
        if (!raw.isObject()) {
            throw invalid("source.settings", "source.settings must be an object");
        }
        ObjectNode settings = (ObjectNode) raw;
        List<String> unknown = new ArrayList<>();
        settings.fieldNames().forEachRemaining(k -> {
            if (!SETTINGS.contains(k)) {
                unknown.add("source.settings." + k);
            }
        });
        if (!unknown.isEmpty()) {
            throw ProtocolException.of(ErrorCode.INVALID, "unknown source settings: " + String.join(", ", unknown))
                    .with("invalid", unknown)
                    .with("known", SETTINGS);
        }
        String format = text(settings, "format", "auto");
        String origin = text(settings, "origin", null);
        String tier = text(settings, "tier", null);
        String verification = text(settings, "verification", null);
        new Vocabulary.Check()
                .value("source.settings.format", format, FORMATS)
                .value("source.settings.origin", origin, Vocabulary.ORIGINS)
                .value("source.settings.tier", tier, Vocabulary.TIERS)
                .value("source.settings.verification", verification, Vocabulary.VERIFICATIONS)
                .throwIfAny();
        boolean cloudEvents = format.startsWith("cloudevents") || format.equals("auto");
        Mapping type = mapping(settings, "type", cloudEvents, format, declaredTypes);
        Mapping subject = mapping(settings, "subject", cloudEvents, format, declaredTypes);
        Mapping time = mapping(settings, "time", cloudEvents, format, declaredTypes);
        if (type == null
                && (format.equals("json") || format.equals("text"))
                && (declaredTypes == null || declaredTypes.size() != 1)) {
            throw invalid(
                    "source.settings.type",
                    "source.settings.type is required for format " + format
                            + " unless the monitor declares exactly one type (e.g. \"const:com.example.order\" or"
                            + " \"/kind\")");
        }

        String actor = text(settings, "actor", "probe:kafka/" + topic);
        String inferred = Provenance.inferOrigin(actor);
        // A bridge is a machine: it never speaks as a person, never asserts source truth, never verifies as one.
        String claim =
                "human".equals(inferred) ? "actor '" + actor + "'" : Provenance.personClaim(origin, tier, verification);
        if (claim != null) {
            throw ProtocolException.of(
                            "src".equals(tier) && claim.startsWith("tier")
                                    ? ErrorCode.TIER_NOT_ASSERTABLE
                                    : ErrorCode.PROVENANCE_CEILING,
                            "a bridge is a machine and cannot claim " + claim
                                    + "; a person promotes or verifies an observation on review")
                    .with("field", "source.settings");
        }

        String start = text(settings, "start", "earliest");
        if (!start.equals("earliest") && !start.equals("latest") && Times.parseOrNull(start) == null) {
            throw invalid(
                    "source.settings.start",
                    "source.settings.start must be earliest, latest or an RFC 3339 time such as 2026-01-01T00:00:00Z");
        }
        List<String> tags = new ArrayList<>();
        JsonNode tagNode = settings.get("tags");
        if (tagNode != null && !tagNode.isNull()) {
            if (!tagNode.isArray() || tagNode.size() > MAX_TAGS) {
                throw invalid(
                        "source.settings.tags",
                        "source.settings.tags must be an array of at most " + MAX_TAGS + " header names");
            }
            for (JsonNode t : tagNode) {
                if (!t.isTextual() || t.asText().isEmpty() || t.asText().length() > 128) {
                    throw invalid("source.settings.tags", "each of source.settings.tags is a header name (1-128)");
                }
                tags.add(t.asText());
            }
        }
        return new KafkaSource(
                topic,
                format,
                type,
                subject,
                time,
                actor,
                origin,
                tier,
                verification,
                start,
                List.copyOf(new LinkedHashSet<>(tags)));
    }

    private static Mapping mapping(
            ObjectNode settings, String field, boolean cloudEvents, String format, List<String> declaredTypes) {
        String name = "source.settings." + field;
        String value = text(settings, field, null);
        if (value == null) {
            return null;
        }
        Mapping m;
        if (value.startsWith("const:") && !field.equals("time")) {
            m = new Mapping(From.CONST, value.substring("const:".length()));
        } else if (value.equals("key") && !field.equals("time")) {
            m = new Mapping(From.KEY, null);
        } else if (value.equals("timestamp") && field.equals("time")) {
            m = new Mapping(From.TIMESTAMP, null);
        } else if (value.startsWith("header:") && value.length() > "header:".length()) {
            m = new Mapping(From.HEADER, value.substring("header:".length()));
        } else if (value.startsWith("ce:") && value.length() > "ce:".length()) {
            if (!cloudEvents) {
                throw invalid(name, name + " " + value + " needs a CloudEvents format (or auto), not " + format);
            }
            m = new Mapping(From.CE, value.substring("ce:".length()));
        } else if (value.startsWith("/")) {
            if (format.equals("text")) {
                throw invalid(name, name + " cannot be a JSON pointer for format text");
            }
            m = new Mapping(From.POINTER, value);
        } else {
            throw invalid(
                    name,
                    name + " must be " + (field.equals("time") ? "timestamp" : "const:<text>, key")
                            + ", header:<name>, ce:<attribute> or a JSON pointer such as /order/id");
        }
        if (m.from() == From.CONST && field.equals("type")) {
            if (!Vocabulary.TYPE.matcher(m.arg()).matches()) {
                throw ProtocolException.of(
                                ErrorCode.UNKNOWN_VOCABULARY, name + " must be a reverse-DNS type: " + m.arg())
                        .with("invalid", List.of(name + ":" + m.arg()));
            }
            if (declaredTypes != null && !declaredTypes.isEmpty() && !declaredTypes.contains(m.arg())) {
                throw ProtocolException.of(
                                ErrorCode.UNKNOWN_VOCABULARY,
                                name + " " + m.arg() + " is not one of the monitor's types " + declaredTypes)
                        .with("invalid", List.of(name + ":" + m.arg()))
                        .with("types", declaredTypes);
            }
        }
        if (m.from() == From.CONST && field.equals("subject") && m.arg().length() > Vocabulary.MAX_SUBJECT_LENGTH) {
            throw invalid(name, name + " is longer than " + Vocabulary.MAX_SUBJECT_LENGTH + " characters");
        }
        return m;
    }

    /** Where a partition the bridge has never read starts: null for earliest or latest. */
    public Instant startTime() {
        return start.equals("earliest") || start.equals("latest") ? null : Times.parseOrNull(start);
    }

    /** The source as stored and served: {@code kind}, {@code ref} and every setting, defaults filled in. */
    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        out.put("kind", KIND);
        out.put("ref", REF_PREFIX + topic);
        ObjectNode s = out.putObject("settings");
        s.put("format", format);
        putMapping(s, "type", type);
        putMapping(s, "subject", subject);
        putMapping(s, "time", time);
        s.put("actor", actor);
        s.put("origin", origin);
        s.put("tier", tier);
        s.put("verification", verification);
        s.put("start", start);
        ArrayNode t = s.putArray("tags");
        tags.forEach(t::add);
        return out;
    }

    private static void putMapping(ObjectNode s, String field, Mapping m) {
        s.put(field, m == null ? null : m.text());
    }

    private static String text(ObjectNode settings, String field, String fallback) {
        JsonNode v = settings.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual()) {
            throw invalid("source.settings." + field, "source.settings." + field + " must be a string");
        }
        return v.asText();
    }

    private static ProtocolException invalid(String field, String message) {
        return ProtocolException.of(ErrorCode.INVALID, message).with("field", field);
    }
}
