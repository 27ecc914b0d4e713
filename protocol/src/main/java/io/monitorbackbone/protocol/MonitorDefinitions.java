package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.List;

/** The one place a create request becomes a {@link Monitor}: defaults, vocabularies, and the order of checks. */
public final class MonitorDefinitions {
    private MonitorDefinitions() {
    }

    /** What a create request yields: the definition and the tokens to show once. */
    public record Created(Monitor monitor, String ownerToken, String subscribeToken) {
    }

    public static void checkId(String id) {
        if (id == null || !Vocabulary.MONITOR_ID.matcher(id).matches()) {
            throw ProtocolException.of(ErrorCode.INVALID, "id must match [\\w.-]{2,64}").with("id", id);
        }
    }

    /** The id a create request asks for ({@code id}, else {@code key}), or a fresh {@code mon-<6 hex>}. */
    public static String requestedId(ObjectNode body) {
        JsonNode id = body.hasNonNull("id") ? body.get("id") : body.get("key");
        if (id == null || id.isNull()) {
            return "mon-" + Tokens.hex(3);
        }
        if (!id.isTextual()) {
            throw ProtocolException.of(ErrorCode.INVALID, "id must match [\\w.-]{2,64}").with("id", id);
        }
        checkId(id.asText());
        return id.asText();
    }

    public static Created create(String id, ObjectNode body, Instant now, boolean attested) {
        String owner = optionalText(body, "owner", attested ? "human:owner" : "agent:owner");
        String name = optionalText(body, "name", id);
        String description = optionalText(body, "description", null);
        String horizon = optionalText(body, "horizon", "event");
        String visibility = optionalText(body, "visibility", "private");
        List<String> capabilities = orDefault(Json.strings(body, "capabilities"), List.of("observe"));
        List<String> defaultGrant = orDefault(Json.strings(body, "default_grant"), List.of("observe"));
        List<String> types = orDefault(Json.strings(body, "types"), List.of());

        JsonNode source = body.get("source");
        if (source == null || source.isNull()) {
            ObjectNode s = Json.object();
            s.put("kind", "log");
            s.put("ref", "monitor-protocol://log");
            source = s;
        } else if (!source.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "source must be an object {kind, ref, settings}");
        }

        new Vocabulary.Check()
                .value("horizon", horizon, Vocabulary.HORIZONS)
                .value("visibility", visibility, Vocabulary.VISIBILITIES)
                .values("capabilities", capabilities, Vocabulary.CAPABILITIES)
                .value("source.kind", Json.text(source, "kind"), Vocabulary.SOURCE_KINDS)
                .values("default_grant", defaultGrant, Vocabulary.CAPABILITIES)
                .throwIfAny();
        if (!source.hasNonNull("kind")) {
            throw ProtocolException.of(ErrorCode.INVALID, "source.kind is required when source is given");
        }

        JsonNode rules = body.get("rules");
        if (rules == null || rules.isNull()) {
            rules = Json.MAPPER.createArrayNode();
        }
        checkRules(rules);

        List<String> badTypes = types.stream().filter(t -> !Vocabulary.TYPE.matcher(t).matches()).map(t -> "types:" + t).toList();
        if (!badTypes.isEmpty()) {
            throw ProtocolException.of(ErrorCode.UNKNOWN_VOCABULARY,
                    "declared types must be reverse-DNS: " + String.join(", ", badTypes)).with("invalid", badTypes);
        }

        JsonNode filter = body.get("filter");
        if (filter == null || filter.isNull()) {
            filter = Json.object();
        }
        Filter.parse(filter, Filter.knownTypes(types, List.of()));

        List<String> notGranted = defaultGrant.stream().filter(c -> !capabilities.contains(c)).toList();
        if (!notGranted.isEmpty()) {
            throw ProtocolException.of(ErrorCode.UNKNOWN_VOCABULARY,
                    "default_grant must be a subset of capabilities: " + String.join(", ", notGranted))
                    .with("invalid", notGranted.stream().map(c -> "default_grant:" + c).toList())
                    .with("capabilities", capabilities);
        }

        JsonNode cadence = body.get("cadence");
        if (cadence == null || cadence.isNull()) {
            ObjectNode c = Json.object();
            c.put("event_driven", true);
            cadence = c;
        }

        String ownerToken = Tokens.mint();
        boolean wantsSubscribeToken = "shared".equals(visibility) || body.path("subscribe_token").asBoolean(false);
        String subscribeToken = wantsSubscribeToken ? Tokens.mint() : null;
        String at = Times.format(now);
        Monitor monitor = new Monitor(id, name, description, 1, owner, source, filter, horizon, List.copyOf(capabilities),
                cadence, optionalSeconds(body, "ttl_seconds"), optionalSeconds(body, "retire_after_mute_seconds"),
                nullIfAbsent(body.get("budget")), visibility, rules, List.copyOf(types), attested, List.copyOf(defaultGrant),
                at, at, false, false, Tokens.hash(ownerToken), subscribeToken == null ? null : Tokens.hash(subscribeToken));
        return new Created(monitor, ownerToken, subscribeToken);
    }

    private static void checkRules(JsonNode rules) {
        if (!rules.isArray()) {
            throw ProtocolException.of(ErrorCode.INVALID, "rules must be an array");
        }
        for (JsonNode rule : rules) {
            String then = Json.text(rule, "then");
            if (!rule.isObject() || !rule.hasNonNull("id") || then == null || !Vocabulary.RULE_THEN.matcher(then).matches()) {
                throw ProtocolException.of(ErrorCode.UNKNOWN_VOCABULARY,
                        "each rule needs an id and then: log | annotate | label | escalate:<sub> | run:<ref> | notify:human")
                        .with("invalid", List.of("rules.then:" + then));
            }
            if (rule.has("when") && !rule.get("when").isNull()) {
                Filter.parse(rule.get("when"), null);
            }
        }
    }

    private static String optionalText(ObjectNode body, String field, String fallback) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual()) {
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be a string").with("field", field);
        }
        return v.asText();
    }

    private static Long optionalSeconds(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be a non-negative integer").with("field", field);
        }
        return v.asLong();
    }

    private static JsonNode nullIfAbsent(JsonNode v) {
        return v == null || v.isMissingNode() ? Json.MAPPER.nullNode() : v;
    }

    private static <T> List<T> orDefault(List<T> value, List<T> fallback) {
        return value == null ? fallback : value;
    }
}
