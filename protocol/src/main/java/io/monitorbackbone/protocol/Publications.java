package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A publish request becomes a {@link Draft} here and only here: shape checks, vocabularies, the defaults that follow
 * origin, then the provenance ceiling, in that order.
 */
public final class Publications {
    public static final Map<String, List<String>> KNOWN = Map.of(
            "tier", Vocabulary.TIERS, "origin", Vocabulary.ORIGINS, "verification", Vocabulary.VERIFICATIONS);

    private Publications() {
    }

    public static Draft resolve(Monitor monitor, ObjectNode body, Instant now) {
        String type = text(body, "type");
        String subject = text(body, "subject");
        String actor = text(body, "actor");
        String onBehalfOf = text(body, "on_behalf_of");
        String sourceRef = text(body, "source_ref");
        String rule = text(body, "rule");
        ObjectNode data = object(body, "data");
        ObjectNode tags = object(body, "tags");
        String time = text(body, "time");
        if (subject != null && subject.length() > Vocabulary.MAX_SUBJECT_LENGTH) {
            throw refusal(ErrorCode.INVALID, "subject is longer than " + Vocabulary.MAX_SUBJECT_LENGTH + " characters")
                    .with("limit", Vocabulary.MAX_SUBJECT_LENGTH);
        }
        if (type == null) {
            throw refusal(ErrorCode.INVALID, "type is required (a reverse-DNS name such as com.example.build.finished)");
        }
        if (time != null && Times.parseOrNull(time) == null) {
            throw refusal(ErrorCode.INVALID, "time must be an RFC 3339 date-time with a zone, e.g. 2026-01-01T00:00:00Z")
                    .with("time", time);
        }
        JsonNode supersedes = reference(body.get("supersedes"), "supersedes");
        ArrayNode derivedFrom = derivedFrom(body.get("wasDerivedFrom"));

        Vocabulary.Check check = new Vocabulary.Check()
                .value("tier", text(body, "tier"), Vocabulary.TIERS)
                .value("origin", text(body, "origin"), Vocabulary.ORIGINS)
                .value("verification", text(body, "verification"), Vocabulary.VERIFICATIONS)
                .pattern("type", type, Vocabulary.TYPE);
        if (!check.invalid().isEmpty()) {
            throw refusal(ErrorCode.UNKNOWN_VOCABULARY, "invalid values: " + String.join(", ", check.invalid()))
                    .with("invalid", check.invalid());
        }

        if (isServerType(type)) {
            throw refusal(ErrorCode.PROVENANCE_CEILING, "type '" + type + "' is written only by the server; a publisher may use "
                    + Vocabulary.CONTRADICTION + " and " + Vocabulary.CONTRADICTION_RESOLVED + " of the protocol's types");
        }
        if (actor == null) {
            actor = monitor.owner();
        }
        boolean humanPrincipal = monitor.ownerIsHuman();
        String inferred = Provenance.inferOrigin(actor);
        String origin = text(body, "origin");
        if (origin == null) {
            origin = humanPrincipal || !"human".equals(inferred) ? inferred : "agent";
        }
        String tier = orElse(text(body, "tier"), Provenance.defaultTier(origin));
        String verification = orElse(text(body, "verification"), Provenance.defaultVerification(origin));

        if (onBehalfOf != null && !onBehalfOf.equals(monitor.owner())) {
            throw refusal(ErrorCode.PROVENANCE_CEILING, "on_behalf_of names '" + onBehalfOf
                    + "', but this monitor acts for its owner '" + monitor.owner()
                    + "': an agent works at the level of the person whose token it holds, not of anyone it names");
        }
        if ("src".equals(tier) && !"human".equals(origin)) {
            throw refusal(ErrorCode.TIER_NOT_ASSERTABLE, "a machine cannot assert tier 'src'; a person promotes it on review");
        }
        if (!humanPrincipal) {
            String claim = "human".equals(origin) ? "origin 'human'"
                    : "src".equals(tier) ? "tier 'src'"
                    : "human_verified".equals(verification) || "certified".equals(verification) ? "verification '" + verification + "'"
                    : null;
            if (claim != null) {
                throw refusal(ErrorCode.PROVENANCE_CEILING,
                        claim + " needs a human principal; this monitor's owner is '" + monitor.owner() + "'");
            }
        }
        if ("human".equals(origin) && !"human".equals(inferred) && onBehalfOf == null) {
            throw refusal(ErrorCode.PROVENANCE_CEILING, "actor '" + actor + "' cannot carry origin 'human' unless it names the person it acts for (on_behalf_of: '"
                    + monitor.owner() + "')");
        }

        ObjectNode stored = data == null ? Json.object() : data.deepCopy();
        ObjectNode storedTags = tags == null ? Json.object() : tags.deepCopy();
        storedTags.put("monitor", monitor.id());
        storedTags.put("origin", origin);
        stored.set("tags", storedTags);
        ObjectNode provenance = Json.object();
        provenance.put("origin", origin);
        provenance.put("tier", tier);
        provenance.put("verification", verification);
        provenance.put("actor", actor);
        provenance.put("on_behalf_of", onBehalfOf);
        provenance.put("attested", monitor.attested());
        provenance.put("source_ref", sourceRef != null ? sourceRef : subject);
        provenance.put("rule", rule);
        provenance.set("wasDerivedFrom", derivedFrom);
        provenance.put("wasAttributedTo", actor);
        provenance.set("supersedes", supersedes);
        stored.set("provenance", provenance);
        return new Draft(type, subject, time != null ? time : Times.format(now), tier, origin, verification,
                monitor.horizon(), actor, stored);
    }

    /**
     * Configuration, subscription, lease, rejection, state and bookmark rows, and rule reactions, are the server's
     * record of what it did: a publisher forging one could, say, count a lease as completed.
     */
    static boolean isServerType(String type) {
        boolean protocolType = type.startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX)
                && !type.equals(Vocabulary.CONTRADICTION) && !type.equals(Vocabulary.CONTRADICTION_RESOLVED);
        return protocolType || type.startsWith(Rules.TYPE_PREFIX);
    }

    private static ProtocolException refusal(ErrorCode code, String message) {
        return ProtocolException.of(code, message).with("invalid", List.of()).with("known", KNOWN);
    }

    private static String text(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw refusal(ErrorCode.INVALID, field + " must be a string").with("field", field);
        }
        return v.asText();
    }

    private static ObjectNode object(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isObject()) {
            throw refusal(ErrorCode.INVALID, field + " must be a JSON object").with("field", field);
        }
        return (ObjectNode) v;
    }

    private static JsonNode reference(JsonNode ref, String field) {
        if (ref == null || ref.isNull()) {
            return Json.MAPPER.nullNode();
        }
        if (!ref.isObject() || !ref.path("source").isTextual() || !ref.path("id").isTextual()) {
            throw refusal(ErrorCode.INVALID, field + " must be {source, id} naming an observation").with("field", field);
        }
        ObjectNode out = Json.object();
        out.put("source", ref.get("source").asText());
        out.put("id", ref.get("id").asText());
        return out;
    }

    private static ArrayNode derivedFrom(JsonNode refs) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        if (refs == null || refs.isNull()) {
            return out;
        }
        if (!refs.isArray()) {
            throw refusal(ErrorCode.INVALID, "wasDerivedFrom must be an array of {source, id}").with("field", "wasDerivedFrom");
        }
        refs.forEach(r -> out.add(reference(r, "wasDerivedFrom")));
        return out;
    }

    private static String orElse(String value, String fallback) {
        return value != null ? value : fallback;
    }
}
