package io.monitorbackbone.gateway.service;

import io.monitorbackbone.gateway.ServerFault;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * JSON-RPC 2.0 over the same services as REST: one call or a batch, results are the REST bodies, failures carry the
 * REST error object as {@code data} and the numeric code of {@link ErrorCode#rpcCode()}.
 */
@ApplicationScoped
public class Rpc {
    private static final Set<String> ENVELOPE = Set.of("_meta", "bearer");

    private final MonitorService monitors;
    private final PublishService publish;
    private final SubscriptionService subscriptions;
    private final DeliveryService delivery;
    private final LeaseService leases;
    private final Executor work;

    @Inject
    public Rpc(MonitorService monitors, PublishService publish, SubscriptionService subscriptions,
               DeliveryService delivery, LeaseService leases, Work work) {
        this.monitors = monitors;
        this.publish = publish;
        this.subscriptions = subscriptions;
        this.delivery = delivery;
        this.leases = leases;
        this.work = work;
    }

    public CompletableFuture<JsonNode> handle(byte[] body, String headerBearer) {
        JsonNode request;
        try {
            request = Json.parseInput(body);
        } catch (ProtocolException refused) {
            return CompletableFuture.completedFuture(failure(null, refused));
        }
        if (request == null || !(request.isObject() || request.isArray() && !request.isEmpty())) {
            return CompletableFuture.completedFuture(failure(null,
                    ProtocolException.of(ErrorCode.INVALID, "a JSON-RPC request is a call object or a non-empty array of them")));
        }
        if (request.isObject()) {
            return call(request, headerBearer);
        }
        if (request.size() > Limits.MAX_BATCH_CALLS) {
            return CompletableFuture.completedFuture(failure(null, ProtocolException.of(ErrorCode.TOO_LARGE,
                    "a JSON-RPC batch holds at most " + Limits.MAX_BATCH_CALLS + " calls; this one has " + request.size())
                    .with("max_batch_calls", Limits.MAX_BATCH_CALLS)));
        }
        // One call after another: a batch holds at most one worker at a time, so however large it is, the requests of
        // other clients on the shared pool are not queued behind all of its calls.
        ArrayNode out = Json.MAPPER.createArrayNode();
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (JsonNode c : request) {
            chain = chain.thenCompose(v -> call(c, headerBearer)).thenAccept(out::add);
        }
        return chain.thenApply(v -> out);
    }

    private CompletableFuture<JsonNode> call(JsonNode call, String headerBearer) {
        JsonNode id = call.isObject() && call.has("id") ? call.get("id") : Json.MAPPER.nullNode();
        CompletableFuture<Reply> reply;
        try {
            if (!call.isObject() || !call.path("method").isTextual()) {
                throw ProtocolException.of(ErrorCode.INVALID, "a call needs a method");
            }
            JsonNode p = call.get("params");
            if (p != null && !p.isNull() && !p.isObject()) {
                throw ProtocolException.of(ErrorCode.INVALID, "params must be an object");
            }
            ObjectNode params = p == null || p.isNull() ? Json.object() : (ObjectNode) p;
            reply = dispatch(call.get("method").asText(), params, bearer(params, headerBearer));
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((r, failure) -> failure == null ? io.monitorbackbone.protocol.JsonRpc.success(id, r.body()) : failure(id, failure));
    }

    /**
     * One method call, as every binding that speaks in method names (JSON-RPC, MCP tools) makes it: the reply is the
     * REST answer, a refusal fails the future with its {@link ProtocolException}.
     */
    public CompletableFuture<Reply> dispatch(String method, ObjectNode params, String bearer) {
        return switch (method) {
            case "monitors/discover" -> done(() -> Reply.of(200, Discover.document()));
            case "monitors/list" -> async(() -> monitors.list(bearer));
            case "monitors/get" -> async(() -> monitors.get(monitorId(params), bearer));
            case "monitors/state" -> async(() -> monitors.state(monitorId(params), bearer));
            // Over RPC only params.registration_token counts: the Authorization header carries the caller's other tokens.
            case "monitors/create" -> async(() -> monitors.create(without(params, ENVELOPE), null));
            case "monitors/update", "monitors/pause", "monitors/resume", "monitors/retire" ->
                    async(() -> monitors.configure(monitorId(params), method.substring("monitors/".length()), params, bearer));
            case "monitors/publish" -> async(() -> publish.publish(monitorId(params), bearer,
                    Json.bytes(without(params, Set.of("_meta", "bearer", "id", "monitor")))));
            case "feeds/subscribe" -> async(() -> subscriptions.subscribe(without(params, ENVELOPE), bearer));
            case "feeds/pull" -> async(() -> delivery.pull(subscriptionId(params), bearer, PullRequest.parse(query(params))))
                    .thenCompose(f -> f);
            case "feeds/ack" -> async(() -> delivery.ack(subscriptionId(params), bearer, params));
            case "feeds/seek" -> async(() -> subscriptions.seek(subscriptionId(params), bearer, params));
            case "feeds/renew" -> async(() -> subscriptions.renew(subscriptionId(params), bearer));
            case "feeds/retire" -> async(() -> subscriptions.retire(subscriptionId(params), bearer, params));
            case "leases/claim", "leases/renew", "leases/complete", "leases/release", "leases/reject" -> async(() ->
                    leases.act(subscriptionId(params), bearer, method.substring("leases/".length()), params));
            default -> CompletableFuture.failedFuture(ProtocolException.of(ErrorCode.NOT_FOUND, "unknown method " + method)
                    .with("method", method));
        };
    }

    private <T> CompletableFuture<T> async(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, this.work);
    }

    private static CompletableFuture<Reply> done(Supplier<Reply> work) {
        return CompletableFuture.completedFuture(work.get());
    }

    private static String bearer(ObjectNode params, String headerBearer) {
        if (headerBearer != null) {
            return headerBearer;
        }
        String meta = Json.text(params.path("_meta"), "ai.mentu/bearer");
        return meta != null ? meta : params.path("bearer").isTextual() ? params.get("bearer").asText() : null;
    }

    private static String monitorId(ObjectNode params) {
        String id = params.path("id").isTextual() ? params.get("id").asText() : Json.text(params, "monitor");
        if (id == null) {
            throw ProtocolException.of(ErrorCode.INVALID, "params.id (the monitor) is required");
        }
        return id;
    }

    private static String subscriptionId(ObjectNode params) {
        String id = params.path("subscription").isTextual() ? params.get("subscription").asText() : Json.text(params, "id");
        if (id == null) {
            throw ProtocolException.of(ErrorCode.INVALID, "params.subscription is required");
        }
        return id;
    }

    private static ObjectNode without(ObjectNode params, Set<String> keys) {
        ObjectNode copy = params.deepCopy();
        copy.remove(keys);
        return copy;
    }

    /** A pull's params as the query string REST would have carried. */
    private static Map<String, List<String>> query(ObjectNode params) {
        Map<String, List<String>> query = new LinkedHashMap<>();
        params.fields().forEachRemaining(e -> {
            if (Set.of("subscription", "id", "_meta", "bearer").contains(e.getKey())) {
                return;
            }
            List<String> values = new ArrayList<>();
            if (e.getValue().isArray()) {
                e.getValue().forEach(v -> values.add(v.asText()));
            } else {
                values.add(e.getValue().asText());
            }
            query.put(e.getKey(), values);
        });
        return query;
    }

    /** Any failure of a call as the protocol error a client is shown; never an exception's own text. */
    public static ProtocolException asProtocolError(Throwable failure) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof ProtocolException pe ? pe
                : ProtocolException.of(ErrorCode.UNAVAILABLE, cause instanceof ServerFault fault ? fault.answer()
                : "internal error: " + cause.getClass().getSimpleName());
    }

    private static ObjectNode failure(JsonNode id, Throwable failure) {
        ProtocolException e = asProtocolError(failure);
        return io.monitorbackbone.protocol.JsonRpc.error(id, e.code().rpcCode(), e.getMessage(), e.toJson());
    }
}
