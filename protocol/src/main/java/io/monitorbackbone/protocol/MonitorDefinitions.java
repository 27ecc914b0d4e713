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
            throw ProtocolException.of(ErrorCode.INVALID, Vocabulary.MONITOR_ID_RULE).with("id", id);
        }
    }

    /** The id a create request asks for ({@code id}, else {@code key}), or a fresh {@code mon-<6 hex>}. */
    public static String requestedId(ObjectNode body) {
        JsonNode id = body.hasNonNull("id") ? body.get("id") : body.get("key");
        if (id == null || id.isNull()) {
            return "mon-" + Tokens.hex(3);
        }
        if (!id.isTextual()) {
            throw ProtocolException.of(ErrorCode.INVALID, Vocabulary.MONITOR_ID_RULE).with("id", id);
        }
        checkId(id.asText());
        return id.asText();
    }

    /** The fields a definition has, validated and with every default applied. */
    private record Fields(String name, String description, String owner, JsonNode source, JsonNode filter, String horizon,
                          List<String> capabilities, JsonNode cadence, Long ttlSeconds, Long retireAfterMuteSeconds,
                          JsonNode budget, String visibility, JsonNode rules, List<String> types, List<String> defaultGrant,
                          Long retentionSeconds, Integer deliveryCountLimit) {
    }

    /** What {@code update} may change; identity, owner, capabilities and tokens stay as created. */
    public static final List<String> PATCHABLE = List.of("name", "description", "source", "filter", "horizon", "visibility",
            "default_grant", "cadence", "ttl_seconds", "retire_after_mute_seconds", "budget", "rules", "types", "limits");

    public static Created create(String id, ObjectNode body, Instant now, boolean attested) {
        Fields f = fields(id, body, attested);
        String ownerToken = Tokens.mint();
        boolean wantsSubscribeToken = "shared".equals(f.visibility()) || body.path("subscribe_token").asBoolean(false);
        String subscribeToken = wantsSubscribeToken ? Tokens.mint() : null;
        String at = Times.format(now);
        Monitor monitor = new Monitor(id, f.name(), f.description(), 1, f.owner(), f.source(), f.filter(), f.horizon(),
                f.capabilities(), f.cadence(), f.ttlSeconds(), f.retireAfterMuteSeconds(), f.budget(), f.visibility(), f.rules(),
                f.types(), attested, f.defaultGrant(), at, at, false, false, Tokens.hash(ownerToken),
                subscribeToken == null ? null : Tokens.hash(subscribeToken), f.retentionSeconds(), f.deliveryCountLimit());
        return new Created(monitor, ownerToken, subscribeToken);
    }

    /** Applies a patch: every key checked as on create, the version raised by one. */
    public static Monitor update(Monitor current, JsonNode patch, Instant now) {
        if (patch == null || patch.isNull()) {
            patch = Json.object();
        }
        if (!patch.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "patch must be an object of fields to change");
        }
        List<String> unknown = new java.util.ArrayList<>();
        patch.fieldNames().forEachRemaining(k -> {
            if (!PATCHABLE.contains(k)) {
                unknown.add(k);
            }
        });
        if (!unknown.isEmpty()) {
            throw ProtocolException.of(ErrorCode.INVALID, "these fields cannot be patched: " + String.join(", ", unknown))
                    .with("invalid", unknown).with("patchable", PATCHABLE);
        }
        ObjectNode merged = current.served(0, Json.object());
        merged.setAll((ObjectNode) patch);
        Fields f = fields(current.id(), merged, current.attested());
        return new Monitor(current.id(), f.name(), f.description(), current.version() + 1, current.owner(), f.source(),
                f.filter(), f.horizon(), current.capabilities(), f.cadence(), f.ttlSeconds(), f.retireAfterMuteSeconds(),
                f.budget(), f.visibility(), f.rules(), f.types(), current.attested(), f.defaultGrant(), current.created(),
                Times.format(now), current.paused(), current.retired(), current.ownerTokenHash(), current.subscribeTokenHash(),
                f.retentionSeconds(), f.deliveryCountLimit());
    }

    /** Pause, resume or retire. Retirement is final: a retired monitor takes no further configuration. */
    public static Monitor transition(Monitor current, String action) {
        if (current.retired()) {
            throw ProtocolException.of(ErrorCode.UNAVAILABLE, "the monitor is retired; retirement is final")
                    .with("live", java.util.Map.of("value", false, "reason", "retired"));
        }
        boolean paused = switch (action) {
            case "pause" -> true;
            case "resume" -> false;
            case "retire" -> current.paused();
            default -> throw new IllegalArgumentException(action);
        };
        return new Monitor(current.id(), current.name(), current.description(), current.version(), current.owner(),
                current.source(), current.filter(), current.horizon(), current.capabilities(), current.cadence(),
                current.ttlSeconds(), current.retireAfterMuteSeconds(), current.budget(), current.visibility(), current.rules(),
                current.types(), current.attested(), current.defaultGrant(), current.created(), current.updated(), paused,
                "retire".equals(action), current.ownerTokenHash(), current.subscribeTokenHash(), current.retentionSeconds(),
                current.deliveryCountLimit());
    }

    /** {@code {field: {before, after}}} for every served field that changed, {@code head} aside. */
    public static ObjectNode diff(ObjectNode before, ObjectNode after) {
        ObjectNode diff = Json.object();
        java.util.Set<String> keys = new java.util.LinkedHashSet<>();
        before.fieldNames().forEachRemaining(keys::add);
        after.fieldNames().forEachRemaining(keys::add);
        for (String k : keys) {
            if (k.equals("head") || java.util.Objects.equals(before.get(k), after.get(k))) {
                continue;
            }
            ObjectNode change = diff.putObject(k);
            change.set("before", before.has(k) ? before.get(k) : Json.MAPPER.nullNode());
            change.set("after", after.has(k) ? after.get(k) : Json.MAPPER.nullNode());
        }
        return diff;
    }

    private static Fields fields(String id, ObjectNode body, boolean attested) {
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

        JsonNode rules = Rules.normalize(body.get("rules"));

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
        } else if (!cadence.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "cadence must be an object");
        }
        JsonNode budget = nullIfAbsent(body.get("budget"));
        if (!budget.isNull() && !budget.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "budget must be an object or null");
        }
        return new Fields(name, description, owner, source, filter, horizon, List.copyOf(new java.util.LinkedHashSet<>(capabilities)),
                cadence, optionalSeconds(body, "ttl_seconds"), optionalSeconds(body, "retire_after_mute_seconds"), budget,
                visibility, rules, List.copyOf(types), List.copyOf(new java.util.LinkedHashSet<>(defaultGrant)),
                retentionSeconds(body.get("limits")), deliveryCountLimit(body.get("limits")));
    }

    /**
     * {@code limits.retention_seconds}: how long the monitor's log keeps observations (the topic's retention); absent
     * means forever. The other keys of a served {@code limits} are the server's and are ignored here.
     */
    private static Long retentionSeconds(JsonNode limits) {
        if (limits == null || limits.isNull()) {
            return null;
        }
        if (!limits.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "limits must be an object such as {\"retention_seconds\": 86400}");
        }
        JsonNode v = limits.get("retention_seconds");
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 1 || v.asLong() > Long.MAX_VALUE / 1000) {
            throw ProtocolException.of(ErrorCode.INVALID, "limits.retention_seconds must be a positive integer").with("field", "limits.retention_seconds");
        }
        return v.asLong();
    }

    /** {@code limits.delivery_count_limit}: the reject that reaches it dead-letters a subject; absent means 5. */
    private static Integer deliveryCountLimit(JsonNode limits) {
        JsonNode v = limits == null || !limits.isObject() ? null : limits.get("delivery_count_limit");
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1 || v.asInt() > 1000) {
            throw ProtocolException.of(ErrorCode.INVALID, "limits.delivery_count_limit must be an integer from 1 to 1000")
                    .with("field", "limits.delivery_count_limit");
        }
        return v.asInt();
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

    /** A non-negative integer field, or null when absent; anything else is refused as INVALID. */
    public static Long optionalSeconds(ObjectNode body, String field) {
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
