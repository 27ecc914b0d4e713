package io.monitorbackbone.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.gateway.service.MonitorService;
import io.monitorbackbone.gateway.service.StateChanges;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import io.quarkiverse.mcp.server.McpConnection;
import io.quarkiverse.mcp.server.runtime.ConnectionManager;
import io.quarkiverse.mcp.server.runtime.McpConnectionBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What {@code /mcp} needs before the MCP extension sees a request. It answers {@code resources/list}, {@code resources/read}, {@code resources/subscribe} and
 * {@code resources/unsubscribe} for {@code monitor://} URIs before the MCP extension sees them; everything else on
 * {@code /mcp} goes on to the extension. The extension matches resource templates only without a query (so a
 * {@code ?token=} URI would not resolve), lists only fixed resources, and subscribes only to fixed resources: a
 * monitor's resources are neither, and who may read or subscribe is the protocol's visibility rule. And it drops
 * top-level null tool arguments (null means absent in this protocol), which the extension would fail on. See ADR 0009.
 */
@ApplicationScoped
public class McpRoute {
    static final String PATH = "/mcp";
    private static final Set<String> METHODS =
            Set.of("resources/list", "resources/read", "resources/subscribe", "resources/unsubscribe");
    /** Before the extension's /mcp route (order 0 by default), after the guard (-1000). */
    private static final int ORDER = -500;

    @Inject
    MonitorService monitors;

    @Inject
    StateChanges stateChanges;

    @Inject
    ConnectionManager connections;

    @Inject
    ResourceSubscriptions subscriptions;

    void register(@Observes Router router) {
        // The extension's own body handler sees this one ran and does not read the body again.
        router.post(PATH).order(ORDER).handler(BodyHandler.create(false).setBodyLimit(2 * 1024 * 1024));
        router.post(PATH).order(ORDER + 1).handler(this::handle);
        router.delete(PATH).order(ORDER).handler(ctx -> {
            String session = ctx.request().getHeader("Mcp-Session-Id");
            if (session != null) {
                subscriptions.endSession(session);
            }
            ctx.next();
        });
    }

    private void handle(RoutingContext ctx) {
        if (refusedParams(ctx)) {
            return;
        }
        JsonNode message = parse(ctx.body().buffer());
        String method = message == null ? null : message.path("method").asText(null);
        if ("tools/call".equals(method)) {
            dropNullArguments(ctx, (ObjectNode) message);
            ctx.next();
            return;
        }
        if (method == null || !METHODS.contains(method) || !message.has("id")) {
            ctx.next();
            return;
        }
        String uri = message.path("params").path("uri").asText(null);
        if (!method.equals("resources/list") && !io.monitorbackbone.protocol.mcp.MonitorUri.isMonitorUri(uri)) {
            ctx.next();
            return;
        }
        McpConnectionBase connection = session(ctx);
        if (connection == null) {
            return;
        }
        JsonNode id = message.get("id");
        String headerBearer = bearer(ctx);
        Supplier<JsonNode> call = switch (method) {
            case "resources/list" -> () -> MonitorResources.listResult(monitors, headerBearer);
            case "resources/read" ->
                () -> {
                    io.monitorbackbone.protocol.mcp.MonitorUri ref =
                            io.monitorbackbone.protocol.mcp.MonitorUri.parse(uri);
                    return MonitorResources.readResult(ref, MonitorResources.read(monitors, ref, headerBearer));
                };
            case "resources/subscribe" ->
                () -> {
                    io.monitorbackbone.protocol.mcp.MonitorUri ref =
                            io.monitorbackbone.protocol.mcp.MonitorUri.parse(uri);
                    // Subscribing needs what reading needs: a private monitor's changes are as secret as its state.
                    MonitorResources.read(monitors, ref, headerBearer);
                    subscriptions.subscribe(stateChanges, connection.id(), uri, ref.monitorId());
                    return Json.object();
                };
            default ->
                () -> {
                    subscriptions.unsubscribe(connection.id(), uri);
                    return Json.object();
                };
        };
        io.vertx.core.Context context = ctx.vertx().getOrCreateContext();
        context.<JsonNode>executeBlocking(call::get, false)
                .onComplete(done -> answer(
                        ctx,
                        done.succeeded()
                                ? io.monitorbackbone.protocol.JsonRpc.success(id, done.result())
                                : McpAnswers.resourceError(id, done.cause())));
    }

    /**
     * JSON-RPC's {@code params} is structured; MCP's are objects. The extension fails on any other {@code params} with a
     * 500, so such a message is answered here: a request with JSON-RPC's "invalid params" error (the protocol error as
     * {@code data}), a notification or a batch holding one with a 400 protocol error.
     */
    private static boolean refusedParams(RoutingContext ctx) {
        Buffer body = ctx.body().buffer();
        if (body == null || body.length() == 0) {
            return false;
        }
        JsonNode message;
        try {
            message = Json.MAPPER.readTree(body.getBytes());
        } catch (java.io.IOException e) {
            return false;
        }
        ProtocolException refusal = ProtocolException.paramsNotObject();
        if (message != null && message.isArray()) {
            for (JsonNode m : message) {
                if (badParams(m)) {
                    io.monitorbackbone.gateway.http.Replies.error(ctx, refusal);
                    return true;
                }
            }
            return false;
        }
        if (!badParams(message)) {
            return false;
        }
        if (!message.has("id")) {
            io.monitorbackbone.gateway.http.Replies.error(ctx, refusal);
        } else {
            answer(
                    ctx,
                    io.monitorbackbone.protocol.JsonRpc.error(
                            message.get("id"), McpAnswers.INVALID_PARAMS, refusal.getMessage(), refusal.toJson()));
        }
        return true;
    }

    private static boolean badParams(JsonNode message) {
        return message != null
                && message.isObject()
                && message.has("params")
                && !message.get("params").isObject()
                && !message.get("params").isNull();
    }

    private static void dropNullArguments(RoutingContext ctx, ObjectNode message) {
        JsonNode arguments = message.path("params").path("arguments");
        if (!arguments.isObject()) {
            return;
        }
        java.util.List<String> nulls = new java.util.ArrayList<>();
        arguments.fields().forEachRemaining(e -> {
            if (e.getValue().isNull()) {
                nulls.add(e.getKey());
            }
        });
        if (!nulls.isEmpty()) {
            ((ObjectNode) arguments).remove(nulls);
            ctx.setBody(Buffer.buffer(Json.bytes(message)));
        }
    }

    /**
     * The session the request names, initialized; otherwise the request is answered as the extension answers an
     * unknown session (404: the client starts a new one) and null is returned.
     */
    private McpConnectionBase session(RoutingContext ctx) {
        String session = ctx.request().getHeader("Mcp-Session-Id");
        McpConnectionBase connection = session == null ? null : connections.get(session);
        if (connection == null || connection.status() != McpConnection.Status.IN_OPERATION) {
            ctx.fail(session == null ? 400 : 404);
            return null;
        }
        return connection;
    }

    private static JsonNode parse(Buffer body) {
        if (body == null || body.length() == 0) {
            return null;
        }
        try {
            JsonNode node = Json.parseInput(body.getBytes());
            return node != null && node.isObject() ? node : null;
        } catch (io.monitorbackbone.protocol.ProtocolException e) {
            return null;
        }
    }

    private static void answer(RoutingContext ctx, ObjectNode body) {
        if (ctx.response().ended() || ctx.response().closed()) {
            return;
        }
        ctx.response()
                .setStatusCode(200)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(Buffer.buffer(Json.bytes(body)));
    }

    static String bearer(RoutingContext ctx) {
        String auth = ctx.request().getHeader("Authorization");
        if (auth == null || auth.length() < 7 || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = auth.substring(7).trim();
        return token.isEmpty() ? null : token;
    }
}
