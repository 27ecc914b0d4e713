package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Instant;

/**
 * The fields of one served observation that the fold reads, extracted once. An attribute missing from the CloudEvent
 * falls back to the same field in {@code data.provenance}, so a bridged record that carries only one of them still
 * counts.
 *
 * @param timeEpochSecond the observation's {@code time}, null when it is not a date-time
 * @param appendedAt      when the log appended it (the Kafka record timestamp), null when the caller does not know
 */
public record Row(
        long seq,
        String source,
        String type,
        String subject,
        String actor,
        String tier,
        String horizon,
        String time,
        Long timeEpochSecond,
        Instant appendedAt,
        ObjectNode data) {

    public static Row of(long seq, ObjectNode served, Instant appendedAt) {
        JsonNode dataNode = served.get("data");
        ObjectNode data = dataNode != null && dataNode.isObject() ? (ObjectNode) dataNode : Json.object();
        JsonNode provenance = data.path("provenance");
        String time = Json.text(served, "time");
        Instant at = Times.parseOrNull(time);
        return new Row(
                seq,
                Json.text(served, "source"),
                Json.text(served, "type"),
                Json.text(served, "subject"),
                firstText(served, provenance, "actor"),
                firstText(served, provenance, "tier"),
                Json.text(served, "horizon"),
                time,
                at == null ? null : at.getEpochSecond(),
                appendedAt,
                data);
    }

    /**
     * The same row as {@link #of(long, ObjectNode, Instant)} of {@code record.served(monitorId, seq, false)}, read
     * from the record's fields without building the served tree (RowTest holds the two to the same rows): the step
     * each record of a log takes in the projector's fold and a gateway's catch-up.
     */
    public static Row of(long seq, String monitorId, Draft record, Instant appendedAt) {
        ObjectNode data = record.data() != null ? record.data() : Json.object();
        JsonNode provenance = data.path("provenance");
        Instant at = Times.parseOrNull(record.time());
        return new Row(
                seq,
                Draft.source(monitorId),
                record.type(),
                record.subject(),
                record.actor() != null ? record.actor() : provenanceText(provenance, "actor"),
                record.tier() != null ? record.tier() : provenanceText(provenance, "tier"),
                record.horizon(),
                record.time(),
                at == null ? null : at.getEpochSecond(),
                appendedAt,
                data);
    }

    private static String provenanceText(JsonNode provenance, String field) {
        return provenance.isObject() ? Json.text(provenance, field) : null;
    }

    private static String firstText(JsonNode attributes, JsonNode provenance, String field) {
        String v = Json.text(attributes, field);
        return v != null ? v : provenanceText(provenance, field);
    }

    /**
     * A row the server wrote about itself ({@code ai.mentu.monitor.*}, and the bridge's {@link Vocabulary#BRIDGE_SOURCE}
     * rows about its source), as opposed to a producer's publish.
     */
    public boolean protocolRow() {
        return type != null
                && (type.startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX) || type.equals(Vocabulary.BRIDGE_SOURCE));
    }

    /** A person or machine outside the server: {@code system:} actors are the server's own. */
    public boolean hasOutsideActor() {
        return actor != null && !actor.startsWith("system:");
    }

    public boolean falsified() {
        return "falsified".equals(tier);
    }

    /** A producer's claim that counts towards its actor's record and towards corroboration. */
    public boolean claim() {
        return !protocolRow() && hasOutsideActor() && !falsified();
    }

    public boolean provenanced() {
        return data.path("provenance").path("origin").isTextual();
    }

    public String origin() {
        JsonNode o = data.path("provenance").path("origin");
        return o.isTextual() ? o.asText() : null;
    }
}
