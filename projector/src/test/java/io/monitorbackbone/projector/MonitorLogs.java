package io.monitorbackbone.projector;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.Publications;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Records as the gateway writes them to {@code mp.obs.<id>}: CloudEvents binary mode, the subject as key. */
final class MonitorLogs {
    static final Instant T0 = Instant.parse("2026-11-29T18:00:00Z");

    private MonitorLogs() {}

    static Monitor monitor(String id, String definition) {
        return MonitorDefinitions.create(id, body(definition), T0, false).monitor();
    }

    static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    /** The record the gateway would write for this publish; the broker stamps its append time. */
    static ProducerRecord<String, byte[]> publish(Monitor monitor, String requestBody, Instant at) {
        return ObservationCodec.encode(
                Topics.obs(monitor.id()), monitor.id(), null, Publications.resolve(monitor, body(requestBody), at));
    }
}
