package io.monitorbackbone.leases;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.net.URI;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Lease rows in the encoding every monitor log uses (docs/adr/0005): a CloudEvent in binary mode, {@code ce_*} headers
 * plus the served {@code data} as the value, the subject as the key.
 */
final class LeaseObservations {
    static final String SOURCE_PREFIX = "monitor:";

    private LeaseObservations() {
    }

    /** @param eventId the {@code ce_id}; null for a fresh random one */
    static ProducerRecord<String, byte[]> encode(String topic, String monitorId, String eventId, Draft draft) {
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
}
