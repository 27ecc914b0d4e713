package io.monitorbackbone.gateway.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Collects a POST body as bytes, whatever its Content-Type: Vert.x's BodyHandler would decode a form content type
 * (what {@code curl -d} sends) as form fields, and the protocol reads every body as JSON; the REST resources take it
 * as their {@code byte[]} entity. Over the limit, the request
 * fails with 413 as soon as the limit is crossed, without reading further.
 */
final class RawBody implements Handler<RoutingContext> {
    @Override
    public void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (request.method() != HttpMethod.POST) {
            ctx.next();
            return;
        }
        Buffer body = Buffer.buffer();
        boolean[] refused = {false};
        request.handler(chunk -> {
            if (refused[0]) {
                return;
            }
            if (body.length() + chunk.length() > Guard.MAX_BODY_BYTES) {
                refused[0] = true;
                ctx.fail(413);
                return;
            }
            body.appendBuffer(chunk);
        });
        request.exceptionHandler(e -> {
            if (!refused[0]) {
                refused[0] = true;
                ctx.fail(400, e);
            }
        });
        request.endHandler(v -> {
            if (!refused[0]) {
                // The REST resources read the body from here (the request has ended; nothing is read twice).
                ctx.setBody(body);
                ctx.next();
            }
        });
        request.resume();
    }
}
