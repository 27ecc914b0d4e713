package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import java.util.Set;

/**
 * One method call of a binding that speaks in method names (JSON-RPC, MCP tools), split into its envelope (who
 * calls, which monitor or subscription it addresses) and the request body, the same body REST carries, so every
 * binding builds the same typed request from it.
 *
 * <p>The rules: the bearer is the transport's (an Authorization header), else {@code _meta["ai.mentu/bearer"]}, else
 * {@code params.bearer} (see {@link #bearer}); a create carries none, only the {@code registration_token} in its
 * params counts. A call to a monitor names it in {@code id} (a string), else {@code monitor}; a call to a subscription
 * in {@code subscription} (a string), else {@code id}. The body is the params without {@code _meta} and
 * {@code bearer}, and without the keys that name what the call addresses; for {@code monitors/create} and
 * {@code feeds/subscribe} {@code id} and {@code monitor} are fields of the body.
 *
 * @param monitor      the addressed monitor, null when the call names none ({@link #monitorId()} refuses that)
 * @param subscription the addressed subscription, null when the call names none ({@link #subscriptionId()} refuses that)
 */
public record RpcCall(String method, String bearer, String monitor, String subscription, ObjectNode body) {
    private static final Set<String> ENVELOPE = Set.of("_meta", "bearer");
    private static final Set<String> MONITOR_KEYS = Set.of("id", "monitor");
    private static final Set<String> SUBSCRIPTION_KEYS = Set.of("subscription", "id");

    /** What a method addresses, by its name. */
    public enum Target {
        NONE,
        MONITOR,
        SUBSCRIPTION
    }

    public static Target target(String method) {
        return switch (method) {
            case "monitors/get",
                    "monitors/state",
                    "monitors/update",
                    "monitors/pause",
                    "monitors/resume",
                    "monitors/retire",
                    "monitors/publish",
                    "monitors/publish_batch" -> Target.MONITOR;
            default ->
                method.startsWith("feeds/") && !method.equals("feeds/subscribe") || method.startsWith("leases/")
                        ? Target.SUBSCRIPTION
                        : Target.NONE;
        };
    }

    /** The bearer of a call: the transport's when it has one, else {@code _meta["ai.mentu/bearer"]}, else {@code bearer}. */
    public static String bearer(ObjectNode params, String transportBearer) {
        if (transportBearer != null) {
            return transportBearer;
        }
        String meta = Json.text(params.path("_meta"), "ai.mentu/bearer");
        return meta != null
                ? meta
                : params.path("bearer").isTextual() ? params.get("bearer").asText() : null;
    }

    /**
     * Splits a call whose bearer is already known (see {@link #bearer}); {@code params} is left as it is.
     */
    public static RpcCall split(String method, ObjectNode params, String bearer) {
        Target target = target(method);
        ObjectNode body = params.deepCopy();
        body.remove(ENVELOPE);
        String monitor = null;
        String subscription = null;
        if (target == Target.MONITOR) {
            monitor = params.path("id").isTextual() ? params.get("id").asText() : Json.text(params, "monitor");
            body.remove(MONITOR_KEYS);
        } else if (target == Target.SUBSCRIPTION) {
            subscription = params.path("subscription").isTextual()
                    ? params.get("subscription").asText()
                    : Json.text(params, "id");
            body.remove(SUBSCRIPTION_KEYS);
        }
        // Over RPC only params.registration_token counts for a create: the Authorization header carries the caller's
        // other tokens.
        return new RpcCall(method, method.equals("monitors/create") ? null : bearer, monitor, subscription, body);
    }

    public String monitorId() {
        if (monitor == null) {
            throw ProtocolException.of(ErrorCode.INVALID, "params.id (the monitor) is required");
        }
        return monitor;
    }

    public String subscriptionId() {
        if (subscription == null) {
            throw ProtocolException.of(ErrorCode.INVALID, "params.subscription is required");
        }
        return subscription;
    }

    /** The suffix of the method name: the action of {@code monitors/update} or {@code leases/claim}. */
    public String action() {
        return method.substring(method.indexOf('/') + 1);
    }
}
