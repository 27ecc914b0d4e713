package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.TreeMap;

/**
 * The observations the server writes about itself ({@code ai.mentu.monitor.*}). Their fields sit in
 * {@code data.payload}. They obey the provenance ceiling like any publish: a name the caller chose never earns a
 * {@code human} origin, and no row claims {@code human_verified}.
 */
public final class ProtocolRows {
    public static final String GUARD = "system:guard";

    private ProtocolRows() {}

    /**
     * @param humanVouched the request proved it comes from the monitor's human owner: an attested monitor and its owner
     *                     token. Only then may a {@code human:} actor keep the human origin.
     */
    public static Draft row(
            Monitor monitor,
            String type,
            String actor,
            String subject,
            ObjectNode payload,
            boolean humanVouched,
            Instant now) {
        return row(
                monitor.id(), monitor.attested(), monitor.horizon(), type, actor, subject, payload, humanVouched, now);
    }

    /**
     * The same row for a writer that knows a monitor only by the few fields a row carries (the leases service keeps
     * no monitor definitions).
     */
    public static Draft row(
            String monitorId,
            boolean attested,
            String horizon,
            String type,
            String actor,
            String subject,
            ObjectNode payload,
            boolean humanVouched,
            Instant now) {
        String origin = Provenance.inferOrigin(actor);
        if ("human".equals(origin) && !humanVouched) {
            origin = "agent";
        }
        String verification = Provenance.defaultVerification(origin);
        ObjectNode data = Json.object();
        data.set("payload", payload);
        ObjectNode tags = Json.object();
        tags.put("monitor", monitorId);
        data.set("tags", tags);
        ObjectNode provenance = Json.object();
        provenance.put("origin", origin);
        provenance.put("tier", "measured");
        provenance.put("verification", verification);
        provenance.put("actor", actor);
        provenance.putNull("on_behalf_of");
        provenance.put("attested", attested);
        provenance.put("source_ref", subject);
        provenance.putNull("rule");
        provenance.set("wasDerivedFrom", Json.MAPPER.createArrayNode());
        provenance.put("wasAttributedTo", actor);
        provenance.putNull("supersedes");
        data.set("provenance", provenance);
        return new Draft(type, subject, Times.format(now), "measured", origin, verification, horizon, actor, data);
    }

    /**
     * An observation the server derived from another by a mechanical rule: tier {@code derived}, the rule and the
     * source observation named in provenance.
     */
    public static Draft derived(
            Monitor monitor,
            String type,
            String actor,
            String subject,
            ObjectNode payload,
            String rule,
            long fromSeq,
            Instant now) {
        Draft d = row(monitor, type, actor, subject, payload, false, now);
        ObjectNode provenance = (ObjectNode) d.data().get("provenance");
        provenance.put("tier", "derived");
        provenance.put("rule", rule);
        ObjectNode from = provenance.withArray("wasDerivedFrom").addObject();
        from.put("source", "monitor:" + monitor.id());
        from.put("id", Long.toString(fromSeq));
        return new Draft(
                d.type(), d.subject(), d.time(), "derived", d.origin(), d.verified(), d.horizon(), d.actor(), d.data());
    }

    public static Draft configured(
            Monitor after,
            ObjectNode servedAfter,
            String action,
            String beforeDigest,
            JsonNode diff,
            String rule,
            String reason,
            boolean ownerVouched,
            Instant now) {
        ObjectNode payload = Json.object();
        payload.put("action", action);
        payload.put("before_digest", beforeDigest);
        payload.set("after", servedAfter);
        payload.set("diff", diff == null ? Json.MAPPER.nullNode() : diff);
        payload.put("rule", rule);
        payload.put("reason", reason);
        payload.put("actor", after.owner());
        return row(
                after,
                Vocabulary.CONFIGURED,
                after.owner(),
                null,
                payload,
                ownerVouched && after.attested() && after.ownerIsHuman(),
                now);
    }

    /** A refused publish, kept as evidence with the raw request body. */
    public static Draft rejected(
            Monitor monitor, ProtocolException refusal, JsonNode raw, String actor, String subject, Instant now) {
        ObjectNode payload = Json.object();
        payload.put("code", refusal.code().name());
        payload.put("reason", refusal.getMessage());
        payload.set("raw", raw);
        payload.put("actor", actor);
        return row(monitor, Vocabulary.REJECTED, GUARD, subject, payload, false, now);
    }

    /** Who "writes" an {@link Vocabulary#UNDECODABLE} row: the reader that could not decode the record. */
    public static final String READER = "system:reader";
    /** How much of the decoder's complaint an undecodable row keeps. */
    static final int UNDECODABLE_REASON_LIMIT = 300;

    /**
     * What a reader serves for a record of a monitor's log it cannot decode. Every reader builds the same row from the
     * same record (the time is the record's timestamp), so the projector's fold and the gateway's reads agree.
     *
     * @param monitorId the monitor whose log holds the record, or null when unknown
     * @param bytes     the size of the record's value
     * @param reason    why it could not be decoded
     */
    public static Draft undecodable(String monitorId, int bytes, String reason, Instant appendedAt) {
        ObjectNode payload = Json.object();
        String why = reason == null ? "unknown" : reason;
        payload.put(
                "reason",
                why.length() > UNDECODABLE_REASON_LIMIT ? why.substring(0, UNDECODABLE_REASON_LIMIT) + "..." : why);
        payload.put("bytes", bytes);
        return row(monitorId, false, "event", Vocabulary.UNDECODABLE, READER, null, payload, false, appendedAt);
    }

    /** SHA-256 hex of a served monitor with its top-level keys sorted: what a configuration change started from. */
    public static String digest(ObjectNode servedMonitor) {
        TreeMap<String, JsonNode> sorted = new TreeMap<>();
        servedMonitor.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest(Json.MAPPER.writeValueAsString(sorted).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
