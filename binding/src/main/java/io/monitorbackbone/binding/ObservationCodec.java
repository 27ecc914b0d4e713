package io.monitorbackbone.binding;

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
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Observations on the wire of Kafka (docs/adr/0005): CloudEvents in binary mode, {@code ce_*} headers, the JSON
 * {@code data} as the value, the subject as the key. The protocol's id is the seq, which only the broker knows once it
 * has appended the record, so {@code ce_id} carries a unique id of the write and the served {@code id} comes from the
 * offset. The gateway, the leases service and the projector all read and write through here.
 */
public final class ObservationCodec {
    public static final String SOURCE_PREFIX = "monitor:";

    private ObservationCodec() {}

    /** @param eventId the {@code ce_id}; null for a fresh random one */
    public static ProducerRecord<String, byte[]> encode(String topic, String monitorId, String eventId, Draft draft) {
        CloudEvent event = CloudEventBuilder.v1()
                .withId(eventId == null ? UUID.randomUUID().toString() : eventId)
                .withSource(URI.create(SOURCE_PREFIX + monitorId))
                .withType(draft.type())
                .withSubject(draft.subject())
                .withTime(OffsetDateTime.ofInstant(Times.parseOrNull(draft.time()), ZoneOffset.UTC))
                .withDataContentType("application/json")
                .withData(Json.bytes(draft.data()))
                .withExtension("tier", draft.tier())
                .withExtension("origin", draft.origin())
                .withExtension("verified", draft.verified())
                .withExtension("horizon", draft.horizon())
                .withExtension("actor", draft.actor())
                .build();
        return KafkaMessageFactory.<String>createWriter(topic, draft.subject()).writeBinary(event);
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
        try {
            return decodeEvent(headers, value, timestamp);
        } catch (RuntimeException e) {
            String monitor = monitorId != null ? monitorId : monitorOf(headers);
            String reason = e.getClass().getSimpleName() + ": " + e.getMessage();
            return ProtocolRows.undecodable(
                    monitor, value == null ? 0 : value.length, reason, Instant.ofEpochMilli(timestamp));
        }
    }

    private static Draft decodeEvent(Headers headers, byte[] value, long timestamp) {
        CloudEvent event = KafkaMessageFactory.createReader(headers, value).toEvent();
        JsonNode data = event.getData() == null
                ? Json.object()
                : Json.read(event.getData().toBytes());
        ObjectNode dataObject;
        if (data.isObject()) {
            dataObject = (ObjectNode) data;
        } else {
            dataObject = Json.object();
            dataObject.set("value", data);
        }
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
                dataObject);
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
