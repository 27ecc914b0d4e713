package io.monitorbackbone.gateway.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import jakarta.ws.rs.core.Response;

/**
 * What every resource does around its one service call: the bearer token from {@code Authorization}, the body read as
 * JSON whatever its Content-Type, and the {@link Reply} as a response that is JSON and never cached.
 */
public final class Answers {
    /** Where the protocol is served. */
    public static final String BASE = "/mp/v0";

    static final String JSON = "application/json; charset=utf-8";

    private Answers() {}

    static Response reply(Reply reply) {
        Response.ResponseBuilder r = json(reply.status(), reply.body());
        reply.headers().forEach(r::header);
        return r.build();
    }

    static Response error(ProtocolErrors.Answer answer) {
        return json(answer.status(), answer.body()).build();
    }

    private static Response.ResponseBuilder json(int status, JsonNode body) {
        return Response.status(status)
                .entity(Json.bytes(body))
                .header("Content-Type", JSON)
                .header("Cache-Control", "no-store");
    }

    /** The token of {@code Authorization: Bearer <token>}, or null when there is none. */
    public static String bearer(String authorization) {
        if (authorization == null
                || authorization.length() < 7
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = authorization.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    /** A POST body as the protocol reads it: JSON, whatever the Content-Type (the protocol's examples use curl -d). */
    static ObjectNode body(byte[] raw) {
        return Json.parseBody(raw(raw));
    }

    /** The POST body {@code http/RawBody} read into the routing context; empty when there was none. */
    static byte[] raw(io.vertx.ext.web.RoutingContext request) {
        io.vertx.ext.web.RequestBody body = request.body();
        return body == null || body.buffer() == null
                ? new byte[0]
                : body.buffer().getBytes();
    }

    static byte[] raw(byte[] raw) {
        return raw == null ? new byte[0] : raw;
    }

    static ProtocolException unknownRoute(String method, String path) {
        return ProtocolException.of(
                io.monitorbackbone.protocol.ErrorCode.NOT_FOUND, "unknown route: " + method + " " + path);
    }
}
