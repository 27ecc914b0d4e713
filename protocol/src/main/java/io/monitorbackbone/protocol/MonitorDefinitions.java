package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.request.CreateMonitor;
import java.time.Instant;
import java.util.List;

/** Where a create request ({@link CreateMonitor}) becomes a {@link Monitor}, and a patch or transition changes one. */
public final class MonitorDefinitions {
    private MonitorDefinitions() {}

    /** What a create request yields: the definition and the tokens to show once. */
    public record Created(Monitor monitor, String ownerToken, String subscribeToken) {}

    public static void checkId(String id) {
        if (id == null || !Vocabulary.MONITOR_ID.matcher(id).matches()) {
            throw ProtocolException.of(ErrorCode.INVALID, Vocabulary.MONITOR_ID_RULE)
                    .with("id", id);
        }
    }

    /** The id a create request asks for ({@code id}, else {@code key}), or a fresh {@code mon-<6 hex>}. */
    public static String requestedId(ObjectNode body) {
        String id = CreateMonitor.requestedId(body);
        return id != null ? id : freshId();
    }

    /** The id of a create that names none. */
    public static String freshId() {
        return "mon-" + Tokens.hex(3);
    }

    /** What {@code update} may change; identity, owner, capabilities and tokens stay as created. */
    public static final List<String> PATCHABLE = List.of(
            "name",
            "description",
            "source",
            "filter",
            "horizon",
            "visibility",
            "default_grant",
            "cadence",
            "ttl_seconds",
            "retire_after_mute_seconds",
            "budget",
            "rules",
            "types",
            "limits");

    public static Created create(String id, ObjectNode body, Instant now, boolean attested) {
        return create(id, CreateMonitor.parse(body), now, attested);
    }

    /** The monitor a create request makes under {@code id}; an attesting server's default owner is a human. */
    public static Created create(String id, CreateMonitor f, Instant now, boolean attested) {
        String ownerToken = Tokens.mint();
        boolean wantsSubscribeToken = "shared".equals(f.visibility()) || f.subscribeToken();
        String subscribeToken = wantsSubscribeToken ? Tokens.mint() : null;
        String at = Times.format(now);
        String owner = f.owner() != null ? f.owner() : attested ? "human:owner" : "agent:owner";
        String name = f.name() != null ? f.name() : id;
        Monitor monitor = new Monitor(
                id,
                name,
                f.description(),
                1,
                owner,
                f.source(),
                f.filter(),
                f.horizon(),
                f.capabilities(),
                f.cadence(),
                f.ttlSeconds(),
                f.retireAfterMuteSeconds(),
                f.budget(),
                f.visibility(),
                f.rules(),
                f.types(),
                attested,
                f.defaultGrant(),
                at,
                at,
                false,
                false,
                Tokens.hash(ownerToken),
                subscribeToken == null ? null : Tokens.hash(subscribeToken),
                f.retentionSeconds(),
                f.deliveryCountLimit());
        return new Created(monitor, ownerToken, subscribeToken);
    }

    /** Applies a patch: every key checked as on create, the version raised by one. */
    public static Monitor update(Monitor current, JsonNode patch, Instant now) {
        ObjectNode checked = checkPatch(patch);
        ObjectNode merged = current.served(0, Json.object());
        merged.setAll(checked);
        CreateMonitor f = CreateMonitor.parse(merged);
        String name = f.name() != null ? f.name() : current.id();
        return new Monitor(
                current.id(),
                name,
                f.description(),
                current.version() + 1,
                current.owner(),
                f.source(),
                f.filter(),
                f.horizon(),
                current.capabilities(),
                f.cadence(),
                f.ttlSeconds(),
                f.retireAfterMuteSeconds(),
                f.budget(),
                f.visibility(),
                f.rules(),
                f.types(),
                current.attested(),
                f.defaultGrant(),
                current.created(),
                Times.format(now),
                current.paused(),
                current.retired(),
                current.ownerTokenHash(),
                current.subscribeTokenHash(),
                f.retentionSeconds(),
                f.deliveryCountLimit());
    }

    /** An update's patch: absent is no change; only the {@link #PATCHABLE} keys. */
    public static ObjectNode checkPatch(JsonNode patch) {
        if (patch == null || patch.isNull()) {
            return Json.object();
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
            throw ProtocolException.of(
                            ErrorCode.INVALID, "these fields cannot be patched: " + String.join(", ", unknown))
                    .with("invalid", unknown)
                    .with("patchable", PATCHABLE);
        }
        return (ObjectNode) patch;
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
        return new Monitor(
                current.id(),
                current.name(),
                current.description(),
                current.version(),
                current.owner(),
                current.source(),
                current.filter(),
                current.horizon(),
                current.capabilities(),
                current.cadence(),
                current.ttlSeconds(),
                current.retireAfterMuteSeconds(),
                current.budget(),
                current.visibility(),
                current.rules(),
                current.types(),
                current.attested(),
                current.defaultGrant(),
                current.created(),
                current.updated(),
                paused,
                "retire".equals(action),
                current.ownerTokenHash(),
                current.subscribeTokenHash(),
                current.retentionSeconds(),
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
}
