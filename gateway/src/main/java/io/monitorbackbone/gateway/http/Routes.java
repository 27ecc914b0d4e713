package io.monitorbackbone.gateway.http;

import io.monitorbackbone.gateway.service.AdminService;
import io.monitorbackbone.gateway.service.DeliveryService;
import io.monitorbackbone.gateway.service.Discover;
import io.monitorbackbone.gateway.service.LeaseService;
import io.monitorbackbone.gateway.service.MonitorService;
import io.monitorbackbone.gateway.service.PublishService;
import io.monitorbackbone.gateway.service.PullRequest;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.gateway.service.Rpc;
import io.monitorbackbone.gateway.service.SubscriptionService;
import io.monitorbackbone.gateway.service.Work;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The REST binding under {@code /mp/v0}: each route parses its inputs, calls one service, and answers. Bodies are read
 * as JSON whatever their Content-Type says, because the protocol's own examples use {@code curl -d}.
 */
@ApplicationScoped
public class Routes {
    static final String BASE = "/mp/v0";

    @Inject
    MonitorService monitors;

    @Inject
    PublishService publish;

    @Inject
    SubscriptionService subscriptions;

    @Inject
    DeliveryService delivery;

    @Inject
    LeaseService leases;

    @Inject
    AdminService admin;

    @Inject
    Rpc rpc;

    @Inject
    Work work;

    @Inject
    Guard guard;

    @Inject
    StreamRoute stream;

    void register(@Observes Router router) {
        router.route().order(-1000).handler(guard);
        router.route(BASE + "/*").order(-900).handler(new RawBody());
        router.route().failureHandler(this::failure);
        router.errorHandler(404, ctx -> Replies.error(ctx, unknownRoute(ctx)));
        router.errorHandler(405, ctx -> Replies.error(ctx, unknownRoute(ctx)));

        router.get(BASE + "/discover").handler(ctx -> call(ctx, () -> Reply.of(200, Discover.document())));
        router.post(BASE + "/monitors").handler(ctx -> call(ctx, () -> monitors.create(body(ctx), bearer(ctx))));
        router.get(BASE + "/monitors").handler(ctx -> call(ctx, () -> monitors.list(bearer(ctx))));
        router.get(BASE + "/monitors/:id").handler(ctx -> call(ctx, () -> monitors.get(id(ctx), bearer(ctx))));
        for (String action : List.of("update", "pause", "resume", "retire")) {
            router.post(BASE + "/monitors/:id/" + action)
                    .handler(ctx -> call(ctx, () -> monitors.configure(id(ctx), action, body(ctx), bearer(ctx))));
        }
        router.get(BASE + "/monitors/:id/state").handler(ctx -> call(ctx, () -> monitors.state(id(ctx), bearer(ctx))));
        router.post(BASE + "/monitors/:id/observations")
                .handler(ctx -> call(ctx, () -> publish.publish(id(ctx), bearer(ctx), raw(ctx))));
        router.post(BASE + "/subscriptions").handler(ctx -> call(ctx, () -> subscriptions.subscribe(body(ctx), bearer(ctx))));
        router.get(BASE + "/subscriptions/:id/pull").handler(ctx -> callAsync(ctx,
                () -> delivery.pull(id(ctx), bearer(ctx), PullRequest.parse(query(ctx)))));
        router.post(BASE + "/subscriptions/:id/ack")
                .handler(ctx -> call(ctx, () -> delivery.ack(id(ctx), bearer(ctx), body(ctx))));
        router.post(BASE + "/subscriptions/:id/seek")
                .handler(ctx -> call(ctx, () -> subscriptions.seek(id(ctx), bearer(ctx), body(ctx))));
        router.post(BASE + "/subscriptions/:id/renew")
                .handler(ctx -> call(ctx, () -> subscriptions.renew(id(ctx), bearer(ctx))));
        router.post(BASE + "/subscriptions/:id/retire")
                .handler(ctx -> call(ctx, () -> subscriptions.retire(id(ctx), bearer(ctx), body(ctx))));
        router.get(BASE + "/subscriptions/:id/stream").handler(stream);
        router.post(BASE + "/subscriptions/:id/leases/:action").handler(ctx -> call(ctx,
                () -> leases.act(id(ctx), bearer(ctx), ctx.pathParam("action"), body(ctx))));
        router.get(BASE + "/admin/snapshot").handler(ctx -> call(ctx, () -> admin.snapshot(bearer(ctx))));
        router.post(BASE + "/admin/compact").handler(ctx -> call(ctx, () -> admin.compact(bearer(ctx), body(ctx))));
        router.post(BASE + "/rpc").handler(ctx -> callAsync(ctx, () -> rpc
                .handle(raw(ctx), bearer(ctx)).thenApply(body -> Reply.of(200, body))));
        router.route(BASE + "/*").last().handler(ctx -> Replies.error(ctx, unknownRoute(ctx)));
    }

    private void call(RoutingContext ctx, Supplier<Reply> call) {
        callAsync(ctx, () -> CompletableFuture.completedFuture(call.get()));
    }

    /** Runs the service call on the worker pool (services block on Kafka) and answers on the request's event loop. */
    void callAsync(RoutingContext ctx, Supplier<CompletableFuture<Reply>> call) {
        io.vertx.core.Context context = ctx.vertx().getOrCreateContext();
        CompletableFuture.supplyAsync(call, work).thenCompose(f -> f)
                .whenComplete((reply, failure) -> context.runOnContext(v -> {
                    if (failure != null) {
                        Replies.failure(ctx, failure);
                    } else {
                        Replies.send(ctx, reply);
                    }
                }));
    }

    private void failure(RoutingContext ctx) {
        if (ctx.request().path().equals(Guard.MCP) && ctx.statusCode() != 413 && ctx.failure() == null) {
            mcpFailure(ctx);
        } else if (ctx.statusCode() == 413) {
            ctx.response().putHeader("Connection", "close");
            guard.refuseTooLarge(ctx, Guard.MAX_BODY_BYTES + 1L);
        } else if (ctx.statusCode() == 400) {
            Replies.error(ctx, ProtocolException.of(ErrorCode.INVALID, "the request body could not be read"));
        } else if (ctx.failure() != null) {
            Replies.failure(ctx, ctx.failure());
        } else if (ctx.statusCode() == 404 || ctx.statusCode() == 405) {
            Replies.error(ctx, unknownRoute(ctx));
        } else {
            Replies.failure(ctx, new IllegalStateException("request failed with status " + ctx.statusCode()));
        }
    }

    /**
     * The MCP extension answers transport errors with a bare status, which MCP clients act on (404: start a new
     * session; 405: no server stream here); the status stays and the body says why.
     */
    private static void mcpFailure(RoutingContext ctx) {
        int status = ctx.statusCode();
        ProtocolException e = switch (status) {
            case 400 -> ProtocolException.of(ErrorCode.INVALID, "an MCP request needs Accept: application/json, "
                    + "text/event-stream, a JSON-RPC body, and a supported MCP-Protocol-Version");
            case 404 -> ProtocolException.of(ErrorCode.NOT_FOUND, "unknown or expired MCP session; start a new one "
                    + "with initialize");
            case 405 -> ProtocolException.of(ErrorCode.INVALID, "GET /mcp opens a session's server stream and needs "
                    + "its Mcp-Session-Id");
            default -> ProtocolException.of(ErrorCode.UNAVAILABLE, "the MCP request failed");
        };
        if (status == 405) {
            ctx.response().putHeader("Allow", "GET, POST, DELETE");
        }
        Replies.error(ctx, status < 400 ? 500 : status, e);
    }

    static ProtocolException unknownRoute(RoutingContext ctx) {
        return ProtocolException.of(ErrorCode.NOT_FOUND, "unknown route: " + ctx.request().method() + " " + ctx.request().path());
    }

    private static String id(RoutingContext ctx) {
        return ctx.pathParam("id");
    }

    private static byte[] raw(RoutingContext ctx) {
        return RawBody.of(ctx);
    }

    private static ObjectNode body(RoutingContext ctx) {
        return Json.parseBody(raw(ctx));
    }

    static String bearer(RoutingContext ctx) {
        String auth = ctx.request().getHeader("Authorization");
        if (auth == null || auth.length() < 7 || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = auth.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    private static Map<String, List<String>> query(RoutingContext ctx) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String name : ctx.queryParams().names()) {
            out.put(name, ctx.queryParams().getAll(name));
        }
        return out;
    }
}
