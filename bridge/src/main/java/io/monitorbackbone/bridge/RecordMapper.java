package io.monitorbackbone.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Publications;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.request.KafkaSource;
import io.monitorbackbone.protocol.request.Publish;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One source record to what the bridge writes for it (docs/adr/0015-bridge.md): an observation, a {@code rejected} row
 * when the protocol refuses what the record says (a {@code src} claim, a type the monitor does not declare), or a dead
 * letter when the record cannot be decoded in the source's format at all. Pure: the same record and monitor give the
 * same outcome, which is what lets a retried transaction write the same rows.
 */
public final class RecordMapper {
    /** How much of a refused record's value its {@code rejected} row keeps, as an HTTP publish's raw body. */
    static final int RAW_LIMIT = 256 * 1024;
    /** A record whose value is larger than the largest publish body is refused without its value. */
    static final int MAX_VALUE_BYTES = 1024 * 1024;

    private RecordMapper() {}

    /** What the bridge writes for one record. */
    public sealed interface Outcome {
        /** The deterministic {@code ce_id} of the row: the record's place in its source. */
        String eventId();
    }

    /** An accepted observation. */
    public record Observation(String eventId, Draft draft) implements Outcome {}

    /** A refused record, kept as evidence. */
    public record Refused(String eventId, Draft row) implements Outcome {}

    /** A record that cannot be decoded: it goes to the dead-letter topic with the reason. */
    public record DeadLetter(String eventId, String error) implements Outcome {}

    /** The record's place in its source: the {@code ce_id} and {@code source_ref} of what it becomes. */
    public static String sourceRef(String topic, int partition, long offset) {
        return KafkaSource.REF_PREFIX + topic + "/" + partition + "/" + offset;
    }

    /** A decoded record: its JSON value (or CloudEvent data) and its CloudEvents attributes when it is one. */
    private record Decoded(JsonNode value, ObjectNode data, Map<String, String> attributes) {
        boolean cloudEvent() {
            return attributes != null;
        }
    }

    /** Thrown inside the mapper for a record that cannot be decoded. */
    private static final class Undecodable extends RuntimeException {
        Undecodable(String message) {
            super(message, null, false, false);
        }
    }

    public static Outcome map(Monitor monitor, KafkaSource source, ConsumerRecord<byte[], byte[]> record, Instant now) {
        String ref = sourceRef(record.topic(), record.partition(), record.offset());
        byte[] value = record.value();
        if (value != null && value.length > MAX_VALUE_BYTES) {
            ProtocolException tooLarge = ProtocolException.of(
                            ErrorCode.TOO_LARGE, "the record's value is larger than " + MAX_VALUE_BYTES + " bytes")
                    .with("limit", MAX_VALUE_BYTES);
            return refused(monitor, source, ref, tooLarge, Json.MAPPER.nullNode(), null, value.length, now);
        }
        Decoded decoded;
        try {
            decoded = decode(source.format(), record);
        } catch (Undecodable e) {
            return new DeadLetter(ref, e.getMessage());
        } catch (ProtocolException refusal) {
            // JSON, but JSON a publish body could not be either (too deep, a key twice): refused as a publish would be.
            return refused(
                    monitor, source, ref, refusal, raw(null, value), null, value == null ? 0 : value.length, now);
        }
        ObjectNode body = Json.object();
        String subject = null;
        try {
            String type = value(source.type(), decoded, record, "type");
            if (type == null
                    && source.type() == null
                    && !decoded.cloudEvent()
                    && monitor.types().size() == 1) {
                type = monitor.types().get(0);
            }
            subject = value(source.subject(), decoded, record, "subject");
            String time = value(source.time(), decoded, record, "time");
            if (time == null) {
                time = Times.format(Instant.ofEpochMilli(record.timestamp()));
            }
            putIfPresent(body, "type", type);
            putIfPresent(body, "subject", subject);
            putIfPresent(body, "time", time);
            body.put("actor", source.actor());
            body.put("source_ref", ref);
            putIfPresent(body, "tier", claim(decoded, record, "tier", source.tier()));
            putIfPresent(body, "origin", claim(decoded, record, "origin", source.origin()));
            putIfPresent(body, "verification", claim(decoded, record, "verification", source.verification()));
            body.set("data", decoded.data());
            ObjectNode tags = tags(source, record);
            if (!tags.isEmpty()) {
                body.set("tags", tags);
            }
            if (decoded.cloudEvent()) {
                // The original event's identity: the served id is the seq, so the event's own id is kept as what this
                // observation was derived from.
                ObjectNode original = Json.object();
                original.put("source", decoded.attributes().get("source"));
                original.put("id", decoded.attributes().get("id"));
                body.putArray("wasDerivedFrom").add(original);
            }
            Publish publish = Publish.parse(body);
            if (!monitor.types().isEmpty() && !monitor.types().contains(publish.type())) {
                throw Publications.refusal(
                                ErrorCode.UNKNOWN_VOCABULARY,
                                "type '" + publish.type() + "' is not one of the monitor's types " + monitor.types())
                        .with("invalid", java.util.List.of("type:" + publish.type()))
                        .with("types", monitor.types());
            }
            return new Observation(ref, Publications.resolve(monitor, publish, now));
        } catch (ProtocolException refusal) {
            return refused(
                    monitor,
                    source,
                    ref,
                    refusal,
                    raw(decoded.value(), value),
                    subject,
                    value == null ? 0 : value.length,
                    now);
        }
    }

    private static Refused refused(
            Monitor monitor,
            KafkaSource source,
            String ref,
            ProtocolException refusal,
            JsonNode raw,
            String subject,
            int bytes,
            Instant now) {
        String boundedSubject =
                subject != null && subject.length() > io.monitorbackbone.protocol.Vocabulary.MAX_SUBJECT_LENGTH
                        ? null
                        : subject;
        Draft row = ProtocolRows.rejected(monitor, refusal, raw, source.actor(), boundedSubject, now);
        ObjectNode payload = (ObjectNode) row.data().get("payload");
        payload.put("bytes", bytes);
        payload.put("source_ref", ref);
        return new Refused(ref, row);
    }

    /** The value as the rejected row keeps it: the JSON when it is small enough, else the text, cut. */
    private static JsonNode raw(JsonNode json, byte[] value) {
        if (value == null) {
            return Json.MAPPER.nullNode();
        }
        if (json != null && value.length <= RAW_LIMIT) {
            return json;
        }
        String text = new String(value, StandardCharsets.UTF_8);
        return TextNode.valueOf(text.length() > RAW_LIMIT ? text.substring(0, RAW_LIMIT) : text);
    }

    private static Decoded decode(String format, ConsumerRecord<byte[], byte[]> record) {
        String chosen = format;
        // The value as auto's choice parsed it, so that the chosen format does not parse it again.
        JsonNode parsed = null;
        if (format.equals("auto")) {
            if (header(record, "ce_specversion") != null) {
                chosen = "cloudevents-binary";
            } else {
                parsed = json(record.value());
                chosen =
                        parsed.isObject() && parsed.path("specversion").isTextual() ? "cloudevents-structured" : "json";
            }
        }
        return switch (chosen) {
            case "json" -> {
                JsonNode json = parsed != null ? parsed : json(record.value());
                yield new Decoded(json, wrap(json), null);
            }
            case "text" -> {
                String text = record.value() == null ? "" : utf8(record.value(), "the value");
                ObjectNode data = Json.object();
                data.put("text", text);
                yield new Decoded(null, data, null);
            }
            case "cloudevents-binary" -> binary(record);
            case "cloudevents-structured" -> structured(parsed != null ? parsed : json(record.value()));
            default -> throw new IllegalStateException("unknown format " + chosen);
        };
    }

    private static Decoded binary(ConsumerRecord<byte[], byte[]> record) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (Header h : record.headers()) {
            String name = h.key().toLowerCase(Locale.ROOT);
            if (name.startsWith("ce_") && h.value() != null) {
                attributes.put(name.substring(3), utf8(h.value(), "header " + h.key()));
            }
        }
        required(attributes, "cloudevents-binary record");
        String contentType = header(record, "content-type");
        JsonNode json = null;
        ObjectNode data;
        byte[] value = record.value();
        if (value == null) {
            data = Json.object();
        } else if (contentType == null || isJson(contentType)) {
            json = json(value);
            data = wrap(json);
        } else if (contentType.startsWith("text/")) {
            data = Json.object();
            data.put("text", utf8(value, "the value"));
        } else {
            data = Json.object();
            data.put("base64", Base64.getEncoder().encodeToString(value));
        }
        if (contentType != null) {
            attributes.put("datacontenttype", contentType);
        }
        return new Decoded(json, data, attributes);
    }

    private static Decoded structured(JsonNode event) {
        if (!event.isObject()) {
            throw new Undecodable("a cloudevents-structured record's value must be a JSON object");
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        event.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("data")
                    && !e.getKey().equals("data_base64")
                    && e.getValue().isValueNode()) {
                attributes.put(e.getKey(), e.getValue().asText());
            }
        });
        required(attributes, "cloudevents-structured record");
        JsonNode json = null;
        ObjectNode data;
        if (event.hasNonNull("data")) {
            json = event.get("data");
            data = wrap(json);
        } else if (event.hasNonNull("data_base64")) {
            data = Json.object();
            data.put("base64", event.get("data_base64").asText());
        } else {
            data = Json.object();
        }
        return new Decoded(json, data, attributes);
    }

    private static void required(Map<String, String> attributes, String what) {
        for (String name : new String[] {"specversion", "id", "source", "type"}) {
            if (attributes.get(name) == null) {
                throw new Undecodable("a " + what + " needs the CloudEvents attribute " + name);
            }
        }
    }

    private static boolean isJson(String contentType) {
        String ct = contentType.toLowerCase(Locale.ROOT);
        return ct.startsWith("application/json") || ct.contains("+json");
    }

    /** An object is the data as it is; any other JSON value is kept as {@code {"value": …}}. */
    private static ObjectNode wrap(JsonNode json) {
        if (json != null && json.isObject()) {
            return ((ObjectNode) json).deepCopy();
        }
        ObjectNode data = Json.object();
        data.set("value", json == null ? Json.MAPPER.nullNode() : json);
        return data;
    }

    /**
     * JSON any reader of the log can read back; what is not JSON at all cannot be decoded. The strict parse a publish
     * body gets comes first, since nearly every record passes it; only a value it refuses (or finds empty) is parsed
     * again leniently, to tell bytes that are not JSON (a dead letter) from JSON a publish could not be (too deep, a
     * key twice: refused as a publish would be). One parse per record instead of two.
     */
    private static JsonNode json(byte[] value) {
        if (value == null) {
            return Json.MAPPER.nullNode();
        }
        JsonNode strict;
        try {
            strict = Json.parseInput(value);
        } catch (ProtocolException refusal) {
            decodable(value);
            throw refusal;
        }
        if (strict == null) {
            decodable(value);
            return Json.MAPPER.nullNode();
        }
        return strict;
    }

    /** Throws {@link Undecodable} unless the value is a JSON document that the log's readers accept. */
    private static void decodable(byte[] value) {
        try {
            JsonNode lenient = Json.read(value);
            if (lenient == null || lenient.isMissingNode()) {
                throw new Undecodable("the value is empty, not JSON");
            }
        } catch (RuntimeException e) {
            if (e instanceof Undecodable u) {
                throw u;
            }
            throw new Undecodable("the value is not JSON: " + firstLine(e.getMessage()));
        }
    }

    private static String value(
            KafkaSource.Mapping mapping, Decoded decoded, ConsumerRecord<byte[], byte[]> r, String field) {
        if (mapping == null) {
            // The format's default: a CloudEvent's own attribute; else the key for subject (and nothing for type and
            // time).
            if (decoded.cloudEvent()) {
                return decoded.attributes().get(field);
            }
            return field.equals("subject") && r.key() != null ? utf8Refusing(r.key(), "the record key") : null;
        }
        return switch (mapping.from()) {
            case CONST -> mapping.arg();
            case KEY -> r.key() == null ? null : utf8Refusing(r.key(), "the record key");
            case HEADER -> {
                Header h = r.headers().lastHeader(mapping.arg());
                yield h == null || h.value() == null ? null : utf8Refusing(h.value(), "header " + mapping.arg());
            }
            case CE -> decoded.cloudEvent() ? decoded.attributes().get(mapping.arg()) : null;
            case POINTER -> {
                JsonNode base = decoded.value();
                JsonNode v = base == null ? null : base.at(mapping.arg());
                if (v == null || v.isMissingNode() || v.isNull()) {
                    yield null;
                }
                if (field.equals("time") && v.isIntegralNumber()) {
                    yield Times.format(Instant.ofEpochMilli(v.asLong()));
                }
                if (!v.isValueNode()) {
                    throw Publications.refusal(
                                    ErrorCode.INVALID, field + " maps to " + mapping.arg() + ", which is not a string")
                            .with("field", field);
                }
                yield v.asText();
            }
            case TIMESTAMP -> Times.format(Instant.ofEpochMilli(r.timestamp()));
        };
    }

    /** A provenance claim the record makes (its CloudEvents attribute, or a {@code ce_} header), else the setting. */
    private static String claim(Decoded decoded, ConsumerRecord<byte[], byte[]> r, String name, String setting) {
        String claimed = decoded.cloudEvent() ? decoded.attributes().get(name) : null;
        if (claimed == null) {
            Header h = r.headers().lastHeader("ce_" + name);
            claimed = h == null || h.value() == null ? null : utf8Refusing(h.value(), "header ce_" + name);
        }
        return claimed != null ? claimed : setting;
    }

    /** The headers the settings name, as tags: UTF-8 text, or {@code base64:…} for other bytes; a null value is none. */
    private static ObjectNode tags(KafkaSource source, ConsumerRecord<byte[], byte[]> r) {
        ObjectNode tags = Json.object();
        for (String name : source.tags()) {
            Header h = r.headers().lastHeader(name);
            if (h == null || h.value() == null) {
                continue;
            }
            String text = utf8OrNull(h.value());
            tags.put(name, text != null ? text : "base64:" + Base64.getEncoder().encodeToString(h.value()));
        }
        return tags;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : utf8OrNull(h.value());
    }

    private static String utf8(byte[] bytes, String what) {
        String text = utf8OrNull(bytes);
        if (text == null) {
            throw new Undecodable(what + " is not UTF-8 text");
        }
        return text;
    }

    private static String utf8Refusing(byte[] bytes, String what) {
        String text = utf8OrNull(bytes);
        if (text == null) {
            throw Publications.refusal(ErrorCode.INVALID, what + " is not UTF-8 text");
        }
        return text;
    }

    static String utf8OrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static void putIfPresent(ObjectNode o, String field, String value) {
        if (value != null) {
            o.put(field, value);
        }
    }

    private static String firstLine(String message) {
        String m = String.valueOf(message);
        int nl = m.indexOf('\n');
        m = nl < 0 ? m : m.substring(0, nl);
        return m.length() > 200 ? m.substring(0, 200) : m;
    }
}
