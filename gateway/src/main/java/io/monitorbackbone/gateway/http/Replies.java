package io.monitorbackbone.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.gateway.rest.ProtocolErrors;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers of the Vert.x handlers in front of the REST resources (the guard, the stream, the router's refusals): JSON,
 * never cached, every failure as {@link ProtocolErrors#toProtocolError} renders it, as the resources answer.
 */
public final class Replies {
    private Replies() {}

    static void send(RoutingContext ctx, Reply reply) {
        reply.headers().forEach(ctx.response()::putHeader);
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
        ProtocolErrors.Answer answer = ProtocolErrors.toProtocolError(failure);
        json(ctx, answer.status(), answer.body());
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
