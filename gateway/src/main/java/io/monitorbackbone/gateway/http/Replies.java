package io.monitorbackbone.gateway.http;

import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Writes answers: JSON, never cached, and every failure as a protocol error body. */
public final class Replies {
    private static final Logger LOGGER = Logger.getLogger(Replies.class);

    private Replies() {
    }

    static void send(RoutingContext ctx, Reply reply) {
        HttpServerResponse response = ctx.response();
        reply.headers().forEach(response::putHeader);
        json(ctx, reply.status(), reply.body());
    }

    public static void error(RoutingContext ctx, ProtocolException e) {
        json(ctx, e.status(), e.toJson());
    }

    /** A protocol error body under a status of the transport's choosing (MCP's 404 and 405 mean something there). */
    static void error(RoutingContext ctx, int status, ProtocolException e) {
        json(ctx, status, e.toJson());
    }

    static void failure(RoutingContext ctx, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ProtocolException e) {
            error(ctx, e);
        } else if (cause instanceof ServerFault fault) {
            LOGGER.warnf("answering 503: %s", fault.answer());
            ObjectNode b = body(fault.answer());
            if (fault.isOutcomeUnknown()) {
                b.put("outcome", "unknown");
            }
            json(ctx, 503, b);
        } else {
            LOGGER.errorf(cause, "unexpected failure on %s %s", ctx.request().method(), ctx.request().path());
            json(ctx, 500, body("internal error: " + cause.getClass().getSimpleName()));
        }
    }

    private static ObjectNode body(String message) {
        ObjectNode b = Json.object();
        b.put("code", ErrorCode.UNAVAILABLE.name());
        b.put("error", message);
        b.set("done", Json.array(List.of()));
        return b;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static void json(RoutingContext ctx, int status, JsonNode body) {
        HttpServerResponse response = ctx.response();
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status)
                .putHeader("Content-Type", "application/json; charset=utf-8")
                .putHeader("Cache-Control", "no-store")
                .end(Buffer.buffer(Json.bytes(body)));
    }
}
