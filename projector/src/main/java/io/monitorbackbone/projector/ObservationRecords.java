package io.monitorbackbone.projector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import org.apache.kafka.common.header.Headers;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Reads a record of a monitor's log (CloudEvents binary mode, docs/adr/0005) back into the observation the gateway
 * serves for it, so the projector folds exactly what readers see.
 */
final class ObservationRecords {
    private ObservationRecords() {
    }

    /**
     * @param timestamp the record's timestamp: the observation's time when the event carries none
     * @throws RuntimeException when the record is not a CloudEvent
     */
    static ObjectNode served(String monitorId, long seq, Headers headers, byte[] value, long timestamp) {
        CloudEvent event = KafkaMessageFactory.createReader(headers, value).toEvent();
        JsonNode data = event.getData() == null ? Json.object() : Json.read(event.getData().toBytes());
        ObjectNode dataObject;
        if (data.isObject()) {
            dataObject = (ObjectNode) data;
        } else {
            dataObject = Json.object();
            dataObject.set("value", data);
        }
        String time = event.getTime() != null ? Times.format(event.getTime().toInstant())
                : Times.format(Instant.ofEpochMilli(timestamp));
        Draft draft = new Draft(event.getType(), event.getSubject(), time, extension(event, "tier"),
                extension(event, "origin"), extension(event, "verified"), extension(event, "horizon"),
                extension(event, "actor"), dataObject);
        return draft.served(monitorId, seq, false);
    }

    private static String extension(CloudEvent event, String name) {
        Object v = event.getExtension(name);
        if (v == null) {
            return null;
        }
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }
}
