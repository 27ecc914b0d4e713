package io.monitorbackbone.gateway.kafka;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Observations on the wire of Kafka: CloudEvents in binary mode ({@code ce_*} headers, the JSON {@code data} as the
 * value, the subject as the key). The protocol's id is the seq, which only the broker knows once it has appended the
 * record, so {@code ce_id} carries a unique id of the write instead and the served {@code id} comes from the offset.
 */
public final class ObservationCodec {
    private ObservationCodec() {
    }

    public static ProducerRecord<String, byte[]> encode(String monitorId, Draft draft) {
        CloudEvent event = CloudEventBuilder.v1()
                .withId(UUID.randomUUID().toString())
                .withSource(URI.create("monitor:" + monitorId))
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
        return KafkaMessageFactory.<String>createWriter(Topics.obs(monitorId), draft.subject()).writeBinary(event);
    }

    public static Draft decode(ConsumerRecord<byte[], byte[]> record) {
        CloudEvent event = KafkaMessageFactory.createReader(record.headers(), record.value()).toEvent();
        JsonNode data = event.getData() == null ? Json.object() : Json.read(event.getData().toBytes());
        ObjectNode dataObject = data.isObject() ? (ObjectNode) data : wrap(data);
        return new Draft(event.getType(), event.getSubject(),
                event.getTime() == null ? Times.format(java.time.Instant.ofEpochMilli(record.timestamp()))
                        : Times.format(event.getTime().toInstant()),
                extension(event, "tier"), extension(event, "origin"), extension(event, "verified"),
                extension(event, "horizon"), extension(event, "actor"), dataObject);
    }

    private static ObjectNode wrap(JsonNode value) {
        ObjectNode o = Json.object();
        o.set("value", value);
        return o;
    }

    private static String extension(CloudEvent event, String name) {
        Object v = event.getExtension(name);
        if (v == null) {
            return null;
        }
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }
}
