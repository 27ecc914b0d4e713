package io.monitorbackbone.protocol;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.confidence.Actors;
import io.monitorbackbone.protocol.confidence.Contradictions;
import io.monitorbackbone.protocol.confidence.Corroboration;
import io.monitorbackbone.protocol.confidence.Independence;
import io.monitorbackbone.protocol.confidence.Row;
import io.monitorbackbone.protocol.confidence.TrackRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;

/**
 * What a monitor's log adds up to, folded one observation at a time by {@link #apply}. Pure and bounded in size
 * whatever the log's length (docs/confidence.md lists the bounds), so the same fold runs in the projector's store, in
 * the {@code mp.state} topic, and in a gateway's follower. It holds only what the log says: whether the monitor is
 * paused, its subscriptions, cursors and retention floor are joined in when the state is rendered ({@link States}).
 *
 * @param observations      rows folded, protocol rows included
 * @param rejected          {@code ai.mentu.monitor.rejected} rows
 * @param acted             {@code ai.mentu.monitor.lease} rows with {@code payload.action} {@code complete}
 * @param firstSeq          the first seq folded; 0 while empty. Counters cover {@code firstSeq..lastSeq}
 * @param lastSeq           the last seq folded; 0 while empty
 * @param lastSourceTime    {@code time} of the last producer publish (not an {@code ai.mentu.monitor.*} row)
 * @param lastSourceContact when the last producer publish reached the log (its append time when known, else its
 *                          {@code time})
 * @param unprovenanced     rows without {@code data.provenance.origin} (bridged records, foreign producers)
 * @param types             the distinct types the log has carried, sorted, at most {@link #MAX_TYPES}: what a filter
 *                          may name besides the declared ones
 * @param typesOverflow     more distinct types than {@link #MAX_TYPES} were seen, so {@code types} is not all of them
 * @param undecodable       records no reader could decode, folded as {@code ai.mentu.monitor.undecodable} rows
 *                          (counted in {@code observations} too); 0 in aggregates stored before it existed
 * @param sourceMissing     the bridge's last word on a Kafka source that is not there ({@link Vocabulary#BRIDGE_SOURCE}
 *                          with status {@code missing}), until a {@code present} row or a bridged record
 *                          ({@code provenance.source_ref} {@code kafka:…}) follows it; null otherwise and in aggregates
 *                          stored before it existed
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Aggregate(
        long observations,
        long rejected,
        long acted,
        long firstSeq,
        long lastSeq,
        String lastTime,
        String lastType,
        String lastSourceTime,
        String lastSourceContact,
        long unprovenanced,
        Actors actors,
        Contradictions contradictions,
        Corroboration corroboration,
        TrackRecord trackRecord,
        Independence independence,
        List<String> types,
        boolean typesOverflow,
        long undecodable,
        SourceMissing sourceMissing) {

    public static final int MAX_TYPES = 128;

    public static final Aggregate EMPTY = new Aggregate(
            0,
            0,
            0,
            0,
            0,
            null,
            null,
            null,
            null,
            0,
            Actors.NONE,
            Contradictions.NONE,
            Corroboration.NONE,
            TrackRecord.NONE,
            Independence.UNDECLARED,
            List.of(),
            false,
            0,
            null);

    /**
     * A Kafka source the bridge found missing.
     *
     * @param topic  the source topic
     * @param reason what the bridge was told, for people
     * @param since  the time of the row that said so
     * @param seq    that row's seq
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SourceMissing(String topic, String reason, String since, long seq) {}

    public Aggregate {
        actors = actors == null ? Actors.NONE : actors;
        contradictions = contradictions == null ? Contradictions.NONE : contradictions;
        corroboration = corroboration == null ? Corroboration.NONE : corroboration;
        trackRecord = trackRecord == null ? TrackRecord.NONE : trackRecord;
        independence = independence == null ? Independence.UNDECLARED : independence;
        types = types == null ? List.of() : List.copyOf(types);
    }

    /**
     * One record of a monitor's log as it was read back: the step every fold of a log takes (the projector's, and a
     * gateway's bringing a lagging fold up to the head), so they agree to the byte. The same aggregate as
     * {@link #apply(long, ObjectNode, Instant)} of the record's served form, without building it (every log the tests
     * write through LogFixture is folded both ways and compared).
     *
     * @param appendedAtMillis the record's timestamp
     */
    public Aggregate apply(String monitorId, long seq, Draft record, long appendedAtMillis) {
        if (record == null || seq <= lastSeq) {
            return this;
        }
        Instant appendedAt = Instant.ofEpochMilli(appendedAtMillis);
        return apply(Row.of(seq, monitorId, record, appendedAt), appendedAt);
    }

    /** {@link #apply(long, ObjectNode, Instant)} without the append time: source contact is the observation's time. */
    public Aggregate apply(long seq, ObjectNode servedObservation) {
        return apply(seq, servedObservation, null);
    }

    /**
     * The aggregate after one more row. A seq at or below {@link #lastSeq} is a redelivery and changes nothing, which
     * makes the fold safe under at-least-once delivery.
     *
     * @param servedObservation the observation as served (the CloudEvent with {@code id}, {@code data} and extensions)
     * @param appendedAt        when the log appended it, or null
     */
    public Aggregate apply(long seq, ObjectNode servedObservation, Instant appendedAt) {
        if (servedObservation == null || seq <= lastSeq) {
            return this;
        }
        return apply(Row.of(seq, servedObservation, appendedAt), appendedAt);
    }

    private Aggregate apply(Row row, Instant appendedAt) {
        long seq = row.seq();
        long first = firstSeq == 0 ? seq : firstSeq;
        Independence nextIndependence = independence.apply(row);
        // Declared actors get their index before anything else can take the last free places.
        Actors nextActors = actors.registerAll(
                        nextIndependence.hasDeclaration() ? nextIndependence.declared() : List.of())
                .note(row.actor());
        int actor = nextActors.indexOf(row.actor());
        boolean status = Vocabulary.BRIDGE_SOURCE.equals(row.type());
        boolean source = !row.protocolRow();
        boolean completedLease = Vocabulary.LEASE.equals(row.type())
                && "complete".equals(row.data().path("payload").path("action").asText(null));
        return new Aggregate(
                observations + 1,
                rejected + (Vocabulary.REJECTED.equals(row.type()) ? 1 : 0),
                acted + (completedLease ? 1 : 0),
                first,
                seq,
                row.time(),
                row.type(),
                source ? row.time() : lastSourceTime,
                source ? (appendedAt != null ? Times.format(appendedAt) : row.time()) : lastSourceContact,
                unprovenanced + (row.provenanced() ? 0 : 1),
                nextActors,
                contradictions.apply(row),
                corroboration.apply(row, actor),
                trackRecord.apply(row, actor, first),
                nextIndependence,
                withType(row.type()),
                typesOverflow || (row.type() != null && !types.contains(row.type()) && types.size() >= MAX_TYPES),
                undecodable + (Vocabulary.UNDECODABLE.equals(row.type()) ? 1 : 0),
                nextSourceMissing(seq, row, status, source));
    }

    private SourceMissing nextSourceMissing(long seq, Row row, boolean status, boolean source) {
        if (status) {
            JsonNode payload = row.data().path("payload");
            if ("missing".equals(payload.path("status").asText(null))) {
                return new SourceMissing(
                        payload.path("topic").asText(null),
                        payload.path("reason").asText(null),
                        row.time(),
                        seq);
            }
            return "present".equals(payload.path("status").asText(null)) ? null : sourceMissing;
        }
        if (source
                && sourceMissing != null
                && row.data().path("provenance").path("source_ref").asText("").startsWith("kafka:")) {
            return null;
        }
        return sourceMissing;
    }

    private List<String> withType(String type) {
        if (type == null || types.size() >= MAX_TYPES) {
            return types;
        }
        int at = java.util.Collections.binarySearch(types, type);
        if (at >= 0) {
            return types;
        }
        List<String> next = new java.util.ArrayList<>(types.size() + 1);
        next.addAll(types);
        next.add(-at - 1, type);
        return next;
    }

    public long contradictionsOpen() {
        return contradictions.count();
    }

    /** The distinct non-system actors seen: exact up to {@link Actors#MAX}. */
    public int distinctActors() {
        return actors.distinct();
    }

    public byte[] toJson() {
        return Json.bytes(this);
    }

    public static Aggregate fromJson(byte[] json) {
        try {
            return Json.MAPPER.readValue(json, Aggregate.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
