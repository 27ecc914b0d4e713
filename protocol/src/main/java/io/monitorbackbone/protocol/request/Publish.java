package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Publications;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;

/**
 * A publish request's body as the publisher sent it, its shape checked: every field of the right JSON type, a type,
 * a subject within its length, a time that parses, references that name an observation, values from the protocol's
 * vocabularies, and no type the server alone writes. What follows from the monitor (defaults, the provenance ceiling)
 * is {@link Publications#resolve}'s.
 *
 * @param type          the reverse-DNS type, always present
 * @param supersedes    {@code {source, id}}, or null
 * @param wasDerivedFrom the {@code {source, id}} references, empty when none
 * @param data          null when the body has none; every other field is null when absent
 */
public record Publish(
        String type,
        String subject,
        String actor,
        String onBehalfOf,
        String sourceRef,
        String rule,
        ObjectNode data,
        ObjectNode tags,
        String time,
        String tier,
        String origin,
        String verification,
        ObjectNode supersedes,
        ArrayNode wasDerivedFrom) {

    /** One parser, refusing in the order a publisher reads its mistakes: field types, then the checks of values. */
    public static Publish parse(ObjectNode body) {
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
            throw Publications.refusal(
                            ErrorCode.INVALID,
                            "subject is longer than " + Vocabulary.MAX_SUBJECT_LENGTH + " characters")
                    .with("limit", Vocabulary.MAX_SUBJECT_LENGTH);
        }
        if (type == null) {
            throw Publications.refusal(
                    ErrorCode.INVALID, "type is required (a reverse-DNS name such as com.example.build.finished)");
        }
        if (time != null && Times.parseOrNull(time) == null) {
            throw Publications.refusal(
                            ErrorCode.INVALID,
                            "time must be an RFC 3339 date-time with a zone, e.g. 2026-01-01T00:00:00Z")
                    .with("time", time);
        }
        ObjectNode supersedes = reference(body.get("supersedes"), "supersedes");
        ArrayNode derivedFrom = derivedFrom(body.get("wasDerivedFrom"));

        String tier = text(body, "tier");
        String origin = text(body, "origin");
        String verification = text(body, "verification");
        Vocabulary.Check check = new Vocabulary.Check()
                .value("tier", tier, Vocabulary.TIERS)
                .value("origin", origin, Vocabulary.ORIGINS)
                .value("verification", verification, Vocabulary.VERIFICATIONS)
                .pattern("type", type, Vocabulary.TYPE);
        if (!check.invalid().isEmpty()) {
            throw Publications.refusal(
                            ErrorCode.UNKNOWN_VOCABULARY, "invalid values: " + String.join(", ", check.invalid()))
                    .with("invalid", check.invalid());
        }
        if (Publications.isServerType(type)) {
            throw Publications.refusal(
                    ErrorCode.PROVENANCE_CEILING,
                    "type '" + type + "' is written only by the server; a publisher may use " + Vocabulary.CONTRADICTION
                            + " and " + Vocabulary.CONTRADICTION_RESOLVED + " of the protocol's types");
        }
        return new Publish(
                type,
                subject,
                actor,
                onBehalfOf,
                sourceRef,
                rule,
                data,
                tags,
                time,
                tier,
                origin,
                verification,
                supersedes,
                derivedFrom);
    }

    /** The body again, with only the fields it carries: {@code parse(p.toJson())} equals {@code p}. */
    public ObjectNode toJson() {
        ObjectNode o = Json.object();
        o.put("type", type);
        putIfPresent(o, "subject", subject);
        putIfPresent(o, "actor", actor);
        putIfPresent(o, "on_behalf_of", onBehalfOf);
        putIfPresent(o, "source_ref", sourceRef);
        putIfPresent(o, "rule", rule);
        putIfPresent(o, "time", time);
        putIfPresent(o, "tier", tier);
        putIfPresent(o, "origin", origin);
        putIfPresent(o, "verification", verification);
        if (data != null) {
            o.set("data", data.deepCopy());
        }
        if (tags != null) {
            o.set("tags", tags.deepCopy());
        }
        if (supersedes != null) {
            o.set("supersedes", supersedes.deepCopy());
        }
        if (!wasDerivedFrom.isEmpty()) {
            o.set("wasDerivedFrom", wasDerivedFrom.deepCopy());
        }
        return o;
    }

    private static void putIfPresent(ObjectNode o, String field, String value) {
        if (value != null) {
            o.put(field, value);
        }
    }

    private static String text(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw Publications.refusal(ErrorCode.INVALID, field + " must be a string")
                    .with("field", field);
        }
        return v.asText();
    }

    private static ObjectNode object(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isObject()) {
            throw Publications.refusal(ErrorCode.INVALID, field + " must be a JSON object")
                    .with("field", field);
        }
        return (ObjectNode) v;
    }

    private static ObjectNode reference(JsonNode ref, String field) {
        if (ref == null || ref.isNull()) {
            return null;
        }
        if (!ref.isObject()
                || !ref.path("source").isTextual()
                || !ref.path("id").isTextual()) {
            throw Publications.refusal(ErrorCode.INVALID, field + " must be {source, id} naming an observation")
                    .with("field", field);
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
            throw Publications.refusal(ErrorCode.INVALID, "wasDerivedFrom must be an array of {source, id}")
                    .with("field", "wasDerivedFrom");
        }
        refs.forEach(r -> out.add(reference(r, "wasDerivedFrom")));
        return out;
    }
}
