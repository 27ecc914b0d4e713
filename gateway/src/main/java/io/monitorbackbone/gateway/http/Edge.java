package io.monitorbackbone.gateway.http;

import io.monitorbackbone.gateway.rest.Answers;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

/**
 * The Vert.x routes in front of the REST resources ({@code gateway/rest}, ADR 0012): the guard, the body read as bytes,
 * the SSE stream, and a protocol error body for everything the router itself refuses or fails (no route, a body that
 * could not be read or is too large, the MCP extension's bare transport errors).
 */
@ApplicationScoped
public class Edge {
    /** Before every other route, the MCP extension's and the REST resources' included. */
    static final int GUARD_ORDER = -1000;

    static final int BODY_ORDER = -900;
    /** Before the REST resources, which would answer the stream's path as an unknown route. */
    static final int STREAM_ORDER = -800;

    @Inject
    Guard guard;

    @Inject
    StreamRoute stream;

    void register(@Observes Router router) {
        router.route().order(GUARD_ORDER).handler(guard);
        router.route(Answers.BASE + "/*").order(BODY_ORDER).handler(new RawBody());
        router.get(Answers.BASE + "/subscriptions/:id/stream")
                .order(STREAM_ORDER)
                .handler(stream);
        router.route().failureHandler(this::failure);
        router.errorHandler(404, ctx -> Replies.error(ctx, unknownRoute(ctx)));
        router.errorHandler(405, ctx -> Replies.error(ctx, unknownRoute(ctx)));
        router.route(Answers.BASE + "/*").last().handler(ctx -> Replies.error(ctx, unknownRoute(ctx)));
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
            case 400 ->
                ProtocolException.of(
                        ErrorCode.INVALID,
                        "an MCP request needs Accept: application/json, "
                                + "text/event-stream, a JSON-RPC body, and a supported MCP-Protocol-Version");
            case 404 ->
                ProtocolException.of(
                        ErrorCode.NOT_FOUND, "unknown or expired MCP session; start a new one " + "with initialize");
            case 405 ->
                ProtocolException.of(
                        ErrorCode.INVALID,
                        "GET /mcp opens a session's server stream and needs " + "its Mcp-Session-Id");
            default -> ProtocolException.of(ErrorCode.UNAVAILABLE, "the MCP request failed");
        };
        if (status == 405) {
            ctx.response().putHeader("Allow", "GET, POST, DELETE");
        }
        Replies.error(ctx, status < 400 ? 500 : status, e);
    }

    private static ProtocolException unknownRoute(RoutingContext ctx) {
        return ProtocolException.of(
                ErrorCode.NOT_FOUND,
                "unknown route: " + ctx.request().method() + " " + ctx.request().path());
    }
}
