package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Discover;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Failures;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.request.Ack;
import io.monitorbackbone.protocol.request.ConfigureMonitor;
import io.monitorbackbone.protocol.request.CreateMonitor;
import io.monitorbackbone.protocol.request.LeaseCall;
import io.monitorbackbone.protocol.request.Pull;
import io.monitorbackbone.protocol.request.RetireSubscription;
import io.monitorbackbone.protocol.request.RpcCall;
import io.monitorbackbone.protocol.request.Seek;
import io.monitorbackbone.protocol.request.Subscribe;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * JSON-RPC 2.0 over the same services as REST: one call or a batch, results are the REST bodies, failures carry the
 * REST error object as {@code data} and the numeric code of {@link ErrorCode#rpcCode()}.
 */
@ApplicationScoped
public class Rpc {
    private final MonitorService monitors;
    private final PublishService publish;
    private final SubscriptionService subscriptions;
    private final DeliveryService delivery;
    private final LeaseService leases;
    private final Executor work;

    @Inject
    public Rpc(
            MonitorService monitors,
            PublishService publish,
            SubscriptionService subscriptions,
            DeliveryService delivery,
            LeaseService leases,
            Work work) {
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
            return CompletableFuture.completedFuture(failure(
                    null,
                    ProtocolException.of(
                            ErrorCode.INVALID, "a JSON-RPC request is a call object or a non-empty array of them")));
        }
        if (request.isObject()) {
            return call(request, headerBearer);
        }
        if (request.size() > Limits.MAX_BATCH_CALLS) {
            return CompletableFuture.completedFuture(failure(
                    null,
                    ProtocolException.of(
                                    ErrorCode.TOO_LARGE,
                                    "a JSON-RPC batch holds at most " + Limits.MAX_BATCH_CALLS + " calls; this one has "
                                            + request.size())
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
                throw ProtocolException.paramsNotObject();
            }
            ObjectNode params = p == null || p.isNull() ? Json.object() : (ObjectNode) p;
            reply = dispatch(call.get("method").asText(), params, RpcCall.bearer(params, headerBearer));
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((r, failure) ->
                failure == null ? io.monitorbackbone.protocol.JsonRpc.success(id, r.body()) : failure(id, failure));
    }

    /**
     * One method call, as every binding that speaks in method names (JSON-RPC, MCP tools) makes it: the reply is the
     * REST answer, a refusal fails the future with its {@link ProtocolException}.
     */
    public CompletableFuture<Reply> dispatch(String method, ObjectNode params, String bearer) {
        RpcCall call = RpcCall.split(method, params, bearer);
        String who = call.bearer();
        ObjectNode body = call.body();
        return switch (method) {
            case "monitors/discover" -> done(() -> Reply.of(200, Discover.document()));
            case "monitors/list" -> async(() -> monitors.list(who));
            case "monitors/get" -> async(() -> monitors.get(call.monitorId(), who));
            case "monitors/state" -> async(() -> monitors.state(call.monitorId(), who));
            case "monitors/create" -> async(() -> monitors.create(CreateMonitor.parse(body), who));
            case "monitors/update", "monitors/pause", "monitors/resume", "monitors/retire" ->
                async(() -> monitors.configure(call.monitorId(), ConfigureMonitor.parse(call.action(), body), who));
            case "monitors/publish" ->
                publish.publish(call.monitorId(), who, Json.bytes(body)).toCompletableFuture();
            case "monitors/publish_batch" ->
                publish.publishBatch(call.monitorId(), who, Json.bytes(body)).toCompletableFuture();
            case "feeds/subscribe" -> async(() -> subscriptions.subscribe(Subscribe.parse(body), who));
            case "feeds/pull" ->
                async(() -> delivery.pull(call.subscriptionId(), who, Pull.fromParams(body)))
                        .thenCompose(f -> f);
            case "feeds/ack" -> async(() -> delivery.ack(call.subscriptionId(), who, Ack.parse(body)));
            case "feeds/seek" -> async(() -> subscriptions.seek(call.subscriptionId(), who, Seek.parse(body)));
            case "feeds/renew" -> async(() -> subscriptions.renew(call.subscriptionId(), who));
            case "feeds/retire" ->
                async(() -> subscriptions.retire(call.subscriptionId(), who, RetireSubscription.parse(body)));
            case "leases/claim", "leases/renew", "leases/complete", "leases/release", "leases/reject" ->
                async(() -> leases.act(call.subscriptionId(), who, LeaseCall.parse(call.action(), body)));
            default ->
                CompletableFuture.failedFuture(ProtocolException.of(ErrorCode.NOT_FOUND, "unknown method " + method)
                        .with("method", method));
        };
    }

    private <T> CompletableFuture<T> async(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, this.work);
    }

    private static CompletableFuture<Reply> done(Supplier<Reply> work) {
        return CompletableFuture.completedFuture(work.get());
    }

    private static ObjectNode failure(JsonNode id, Throwable failure) {
        ProtocolException e = Failures.protocolError(failure);
        return io.monitorbackbone.protocol.JsonRpc.error(id, e.code().rpcCode(), e.getMessage(), e.toJson());
    }
}
