package io.monitorbackbone.binding;

import static java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Observations on the wire of Kafka (docs/adr/0005): CloudEvents in binary mode, {@code ce_*} headers, the JSON
 * {@code data} as the value, the subject as the key. The protocol's id is the seq, which only the broker knows once it
 * has appended the record, so {@code ce_id} carries a unique id of the write and the served {@code id} comes from the
 * offset. The gateway, the leases service and the projector all read and write through here.
 */
public final class ObservationCodec {
    public static final String SOURCE_PREFIX = "monitor:";

    static final String SPECVERSION = "ce_specversion";
    static final String ID = "ce_id";
    static final String SOURCE = "ce_source";
    static final String TYPE = "ce_type";
    static final String CONTENT_TYPE = "content-type";
    static final String SUBJECT = "ce_subject";
    static final String TIME = "ce_time";
    static final String TIER = "ce_tier";
    static final String ORIGIN = "ce_origin";
    static final String VERIFIED = "ce_verified";
    static final String HORIZON = "ce_horizon";
    static final String ACTOR = "ce_actor";
    static final String JSON = "application/json";
    /** The headers {@link #encode} writes, in the order of {@link #decodeOwn}'s values. */
    static final java.util.List<String> OWN_HEADERS = java.util.List.of(
            SPECVERSION, ID, SOURCE, TYPE, CONTENT_TYPE, SUBJECT, TIME, TIER, ORIGIN, VERIFIED, HORIZON, ACTOR);

    private ObservationCodec() {}

    /** @param eventId the {@code ce_id}; null for a fresh random one */
    public static ProducerRecord<String, byte[]> encode(String topic, String monitorId, String eventId, Draft draft) {
        Headers headers = new RecordHeaders();
        headers.add(header(SPECVERSION, "1.0"));
        headers.add(header(ID, eventId == null ? UUID.randomUUID().toString() : eventId));
        headers.add(header(SOURCE, SOURCE_PREFIX + monitorId));
        headers.add(header(TYPE, Objects.requireNonNull(draft.type(), "type")));
        headers.add(header(CONTENT_TYPE, JSON));
        if (draft.subject() != null) {
            headers.add(header(SUBJECT, draft.subject()));
        }
        Instant time = Objects.requireNonNull(Times.parseOrNull(draft.time()), "time");
        headers.add(header(TIME, rfc3339(time)));
        headers.add(header(TIER, extensionValue("tier", draft.tier())));
        headers.add(header(ORIGIN, extensionValue("origin", draft.origin())));
        headers.add(header(VERIFIED, extensionValue("verified", draft.verified())));
        headers.add(header(HORIZON, extensionValue("horizon", draft.horizon())));
        headers.add(header(ACTOR, extensionValue("actor", draft.actor())));
        return new ProducerRecord<>(topic, null, null, draft.subject(), Json.bytes(draft.data()), headers);
    }

    /**
     * The same record through the CloudEvents SDK's builder and Kafka writer: what {@link #encode} replaced, kept so
     * that a test and the codec benchmark compare the two.
     */
    public static ProducerRecord<String, byte[]> encodeWithSdk(
            String topic, String monitorId, String eventId, Draft draft) {
        CloudEvent event = CloudEventBuilder.v1()
                .withId(eventId == null ? UUID.randomUUID().toString() : eventId)
                .withSource(URI.create(SOURCE_PREFIX + monitorId))
                .withType(draft.type())
                .withSubject(draft.subject())
                .withTime(OffsetDateTime.ofInstant(Times.parseOrNull(draft.time()), ZoneOffset.UTC))
                .withDataContentType(JSON)
                .withData(Json.bytes(draft.data()))
                .withExtension("tier", draft.tier())
                .withExtension("origin", draft.origin())
                .withExtension("verified", draft.verified())
                .withExtension("horizon", draft.horizon())
                .withExtension("actor", draft.actor())
                .build();
        return KafkaMessageFactory.<String>createWriter(topic, draft.subject()).writeBinary(event);
    }

    /**
     * {@code ce_time} as the SDK wrote it ({@code ISO_OFFSET_DATE_TIME} of the UTC time: the fraction without its
     * trailing zeros, none at all for a whole second), from the served form where it has one.
     */
    static String rfc3339(Instant time) {
        String served = time.getNano() % 1_000_000 == 0 ? Times.format(time) : "";
        if (served.length() != 24 || served.charAt(19) != '.') {
            return ISO_OFFSET_DATE_TIME.format(OffsetDateTime.ofInstant(time, ZoneOffset.UTC));
        }
        int end = 23;
        while (end > 20 && served.charAt(end - 1) == '0') {
            end--;
        }
        // end is the index after the last digit kept; 20 means no digit, and then no point either.
        return served.substring(0, end == 20 ? 19 : end) + "Z";
    }

    private static RecordHeader header(String key, String value) {
        return new RecordHeader(key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** The SDK refused a missing extension value when it wrote the event; so does this. */
    private static String extensionValue(String name, String value) {
        if (value == null) {
            throw new IllegalStateException("the extension " + name + " has no value");
        }
        return value;
    }

    /** {@link #decode(String, Headers, byte[], long)} naming the monitor by the record's {@code ce_source}. */
    public static Draft decode(Headers headers, byte[] value, long timestamp) {
        return decode(null, headers, value, timestamp);
    }

    /**
     * Never fails: a record that is not a CloudEvent this server can read back (a foreign producer's bytes, JSON
     * deeper than {@link Json#MAX_READ_NESTING}) comes back as an {@link Vocabulary#UNDECODABLE} row, so every reader
     * serves it at its seq and every fold counts it, instead of skipping it or failing the read.
     *
     * @param monitorId the monitor whose log holds the record; null to take it from {@code ce_source}
     * @param timestamp the record's timestamp: the observation's time when the event carries none
     */
    public static Draft decode(String monitorId, Headers headers, byte[] value, long timestamp) {
        return decode(monitorId, headers, value, timestamp, null);
    }

    /** {@link #decode(String, Headers, byte[], long)}, header values made text by {@code texts} when given. */
    static Draft decode(String monitorId, Headers headers, byte[] value, long timestamp, ObservationDecoder texts) {
        try {
            Draft draft = decodeOwn(headers, value, timestamp, texts);
            return draft != null ? draft : decodeWithSdk(headers, value, timestamp);
        } catch (RuntimeException e) {
            String monitor = monitorId != null ? monitorId : monitorOf(headers);
            String reason = e.getClass().getSimpleName() + ": " + e.getMessage();
            return ProtocolRows.undecodable(
                    monitor, value == null ? 0 : value.length, reason, Instant.ofEpochMilli(timestamp));
        }
    }

    /**
     * The records this server writes ({@link #encode}: binary mode, {@code content-type: application/json}, the seven
     * attributes and five extensions it sets, each header once) read without the SDK's reader, builder and extension
     * map, which cost more than half of a decode. Null for anything else, which {@link #decodeWithSdk} then reads
     * exactly as before, so every record decodes to what the SDK made of it (ObservationCodecTest compares the two).
     */
    public static Draft decodeOwn(Headers headers, byte[] value, long timestamp) {
        return decodeOwn(headers, value, timestamp, null);
    }

    private static Draft decodeOwn(Headers headers, byte[] value, long timestamp, ObservationDecoder texts) {
        String[] v = new String[OWN_HEADERS.size()];
        for (org.apache.kafka.common.header.Header h : headers) {
            int at = OWN_HEADERS.indexOf(h.key());
            // Another header, a header without a value or one given twice: not a record of ours.
            if (at < 0 || h.value() == null || v[at] != null) {
                return null;
            }
            v[at] = texts == null ? new String(h.value(), StandardCharsets.UTF_8) : texts.text(at, h.value());
        }
        String specversion = v[0];
        String id = v[1];
        String source = v[2];
        String type = v[3];
        String contentType = v[4];
        String time = v[6];
        if (!"1.0".equals(specversion)
                || id == null
                || source == null
                || !source.startsWith(SOURCE_PREFIX)
                || type == null
                || !JSON.equals(contentType)) {
            return null;
        }
        if (!ownSource(source)) {
            try {
                // The SDK's check of the source, so that what it refused is still refused (by it).
                new URI(source);
            } catch (URISyntaxException e) {
                return null;
            }
        }
        // The SDK's OffsetDateTime.parse is ISO_OFFSET_DATE_TIME, which Times.parseOrNull agrees with (TimesTest).
        String served = time == null
                ? Times.format(Instant.ofEpochMilli(timestamp))
                : texts == null ? servedTime(time) : texts.served(time);
        if (served == null) {
            return null;
        }
        // subject, then the extensions tier, origin, verified, horizon and actor, in OWN_HEADERS' order
        return new Draft(type, v[5], served, v[7], v[8], v[9], v[10], v[11], data(value));
    }

    /** A {@code ce_time} in the served form, null when it is not a time. */
    static String servedTime(String time) {
        Instant at = Times.parseOrNull(time);
        return at == null ? null : Times.format(at);
    }

    /**
     * {@code monitor:} and a monitor id's characters ({@link io.monitorbackbone.protocol.Vocabulary#MONITOR_ID}'s
     * class, all unreserved in a URI): a source every URI parser takes, so the parse is skipped. It was a tenth of the
     * projector's decode of a single publish (docs/benchmarks.md, 2026-12-07). Anything else is still parsed.
     */
    static boolean ownSource(String source) {
        int n = source.length();
        if (n <= SOURCE_PREFIX.length() || !source.startsWith(SOURCE_PREFIX)) {
            return false;
        }
        for (int i = SOURCE_PREFIX.length(); i < n; i++) {
            char c = source.charAt(i);
            boolean idChar = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == '.'
                    || c == '-';
            if (!idChar) {
                return false;
            }
        }
        return true;
    }

    /** Any CloudEvent in binary or structured mode, through the SDK. */
    public static Draft decodeWithSdk(Headers headers, byte[] value, long timestamp) {
        CloudEvent event = KafkaMessageFactory.createReader(headers, value).toEvent();
        String time = event.getTime() != null
                ? Times.format(event.getTime().toInstant())
                : Times.format(Instant.ofEpochMilli(timestamp));
        return new Draft(
                event.getType(),
                event.getSubject(),
                time,
                extension(event, "tier"),
                extension(event, "origin"),
                extension(event, "verified"),
                extension(event, "horizon"),
                extension(event, "actor"),
                data(event.getData() == null ? null : event.getData().toBytes()));
    }

    /** The served {@code data} object of a record's value: in binary mode an empty value is no data. */
    private static ObjectNode data(byte[] bytes) {
        JsonNode parsed = bytes == null || bytes.length == 0 ? Json.object() : Json.read(bytes);
        if (parsed.isObject()) {
            return (ObjectNode) parsed;
        }
        ObjectNode wrapped = Json.object();
        wrapped.set("value", parsed);
        return wrapped;
    }

    private static String monitorOf(Headers headers) {
        try {
            org.apache.kafka.common.header.Header source = headers == null ? null : headers.lastHeader("ce_source");
            String s = source == null || source.value() == null
                    ? null
                    : new String(source.value(), StandardCharsets.UTF_8);
            return s != null && s.startsWith(SOURCE_PREFIX) ? s.substring(SOURCE_PREFIX.length()) : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String extension(CloudEvent event, String name) {
        Object v = event.getExtension(name);
        if (v == null) {
            return null;
        }
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }
}
