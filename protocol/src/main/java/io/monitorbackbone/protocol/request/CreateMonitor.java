package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Rules;
import io.monitorbackbone.protocol.Vocabulary;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * {@code POST /mp/v0/monitors} (and {@code monitors/create}): a monitor's definition as asked for, every field checked
 * and every default applied that does not depend on the server. Two defaults do: {@code id} (null: the server mints
 * {@code mon-<6 hex>}) and {@code owner} (null: {@code human:owner} on an attesting server, else {@code agent:owner});
 * {@code name} null means the id. {@link MonitorDefinitions#create} turns it into a {@code Monitor}, and
 * {@link MonitorDefinitions#update} reads a patched definition through the same {@link #parse}.
 *
 * @param subscribeToken    whether to mint a subscribe token although the monitor is not {@code shared}
 * @param registrationToken the server's registration token when the body carries it (a header bearer wins)
 * @param rule              recorded on the {@code configured} row, as text
 * @param reason            recorded on the {@code configured} row, as text
 */
public record CreateMonitor(
        String id,
        String name,
        String description,
        String owner,
        JsonNode source,
        JsonNode filter,
        String horizon,
        List<String> capabilities,
        JsonNode cadence,
        Long ttlSeconds,
        Long retireAfterMuteSeconds,
        JsonNode budget,
        String visibility,
        JsonNode rules,
        List<String> types,
        List<String> defaultGrant,
        Long retentionSeconds,
        Integer deliveryCountLimit,
        boolean subscribeToken,
        String registrationToken,
        String rule,
        String reason) {

    /** Reads a create body; the checks run in the order that decides which refusal a body with several faults gets. */
    public static CreateMonitor parse(ObjectNode body) {
        String id = requestedId(body);
        String owner = Fields.optionalText(body, "owner", null);
        String name = Fields.optionalText(body, "name", null);
        String description = Fields.optionalText(body, "description", null);
        String horizon = Fields.optionalText(body, "horizon", "event");
        String visibility = Fields.optionalText(body, "visibility", "private");
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

        List<String> badTypes = types.stream()
                .filter(t -> !Vocabulary.TYPE.matcher(t).matches())
                .map(t -> "types:" + t)
                .toList();
        if (!badTypes.isEmpty()) {
            throw ProtocolException.of(
                            ErrorCode.UNKNOWN_VOCABULARY,
                            "declared types must be reverse-DNS: " + String.join(", ", badTypes))
                    .with("invalid", badTypes);
        }
        if (KafkaSource.names(source)) {
            // A bridged monitor (docs/adr/0015-bridge.md): its settings are checked here and stored with their
            // defaults.
            source = KafkaSource.parse(source, types).toJson();
        }

        JsonNode filter = body.get("filter");
        if (filter == null || filter.isNull()) {
            filter = Json.object();
        }
        Filter.parse(filter, Filter.knownTypes(types, List.of()));

        List<String> notGranted =
                defaultGrant.stream().filter(c -> !capabilities.contains(c)).toList();
        if (!notGranted.isEmpty()) {
            throw ProtocolException.of(
                            ErrorCode.UNKNOWN_VOCABULARY,
                            "default_grant must be a subset of capabilities: " + String.join(", ", notGranted))
                    .with(
                            "invalid",
                            notGranted.stream().map(c -> "default_grant:" + c).toList())
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
        JsonNode budget = body.get("budget");
        if (budget == null || budget.isMissingNode()) {
            budget = Json.MAPPER.nullNode();
        }
        if (!budget.isNull() && !budget.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "budget must be an object or null");
        }
        Long ttlSeconds = Fields.optionalSeconds(body, "ttl_seconds");
        Long retireAfterMuteSeconds = Fields.optionalSeconds(body, "retire_after_mute_seconds");
        Long retentionSeconds = retentionSeconds(body.get("limits"));
        Integer deliveryCountLimit = deliveryCountLimit(body.get("limits"));
        return new CreateMonitor(
                id,
                name,
                description,
                owner,
                source,
                filter,
                horizon,
                List.copyOf(new LinkedHashSet<>(capabilities)),
                cadence,
                ttlSeconds,
                retireAfterMuteSeconds,
                budget,
                visibility,
                rules,
                List.copyOf(types),
                List.copyOf(new LinkedHashSet<>(defaultGrant)),
                retentionSeconds,
                deliveryCountLimit,
                body.path("subscribe_token").asBoolean(false),
                Json.text(body, "registration_token"),
                Json.text(body, "rule"),
                Json.text(body, "reason"));
    }

    /** The body that {@link #parse} reads back as this request. */
    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        Fields.putIfPresent(out, "id", id);
        Fields.putIfPresent(out, "name", name);
        Fields.putIfPresent(out, "description", description);
        Fields.putIfPresent(out, "owner", owner);
        out.set("source", source.deepCopy());
        out.set("filter", filter.deepCopy());
        out.put("horizon", horizon);
        out.set("capabilities", Json.array(capabilities));
        out.set("cadence", cadence.deepCopy());
        Fields.putIfPresent(out, "ttl_seconds", ttlSeconds);
        Fields.putIfPresent(out, "retire_after_mute_seconds", retireAfterMuteSeconds);
        out.set("budget", budget.deepCopy());
        out.put("visibility", visibility);
        out.set("rules", rules.deepCopy());
        out.set("types", Json.array(types));
        out.set("default_grant", Json.array(defaultGrant));
        if (retentionSeconds != null || deliveryCountLimit != null) {
            ObjectNode limits = out.putObject("limits");
            Fields.putIfPresent(limits, "retention_seconds", retentionSeconds);
            if (deliveryCountLimit != null) {
                limits.put("delivery_count_limit", deliveryCountLimit);
            }
        }
        if (subscribeToken) {
            out.put("subscribe_token", true);
        }
        Fields.putIfPresent(out, "registration_token", registrationToken);
        Fields.putIfPresent(out, "rule", rule);
        Fields.putIfPresent(out, "reason", reason);
        return out;
    }

    /** The id a create body asks for ({@code id}, else {@code key}), checked; null when it names none. */
    public static String requestedId(ObjectNode body) {
        JsonNode id = body.hasNonNull("id") ? body.get("id") : body.get("key");
        if (id == null || id.isNull()) {
            return null;
        }
        if (!id.isTextual()) {
            throw ProtocolException.of(ErrorCode.INVALID, Vocabulary.MONITOR_ID_RULE)
                    .with("id", id);
        }
        MonitorDefinitions.checkId(id.asText());
        return id.asText();
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
            throw ProtocolException.of(
                    ErrorCode.INVALID, "limits must be an object such as {\"retention_seconds\": 86400}");
        }
        JsonNode v = limits.get("retention_seconds");
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 1 || v.asLong() > Long.MAX_VALUE / 1000) {
            throw ProtocolException.of(ErrorCode.INVALID, "limits.retention_seconds must be a positive integer")
                    .with("field", "limits.retention_seconds");
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
            throw ProtocolException.of(
                            ErrorCode.INVALID, "limits.delivery_count_limit must be an integer from 1 to 1000")
                    .with("field", "limits.delivery_count_limit");
        }
        return v.asInt();
    }

    private static <T> List<T> orDefault(List<T> value, List<T> fallback) {
        return value == null ? fallback : value;
    }
}
