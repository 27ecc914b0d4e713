package io.monitorbackbone.gateway.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.gateway.rest.Answers;
import io.monitorbackbone.gateway.service.DeliveryService;
import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.protocol.Json;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

/**
 * {@code GET /subscriptions/{id}/stream}: Server-Sent Events over the same reads as pull. Each observation is
 * {@code id: <seq>}, so a client resumes with {@code Last-Event-ID}; an idle stream sends a heartbeat every 5 s. A
 * stream never commits and never marks anything delivered: only ack moves the cursor.
 */
@ApplicationScoped
public class StreamRoute implements Handler<RoutingContext> {
    static final Duration HEARTBEAT = Duration.ofSeconds(5);
    private static final int PAGE = 100;

    @Inject
    DeliveryService delivery;

    @Override
    public void handle(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        String bearer = Answers.bearer(ctx.request().getHeader("Authorization"));
        String lastEventId = ctx.request().getHeader("Last-Event-ID");
        String cursor = ctx.queryParams().get("cursor");
        Context context = ctx.vertx().getOrCreateContext();
        // Opening and reading block on Kafka: on a worker thread; each step goes on on the request's context.
        context.<Open>executeBlocking(
                        () -> new Open(delivery, delivery.openStream(id, bearer, lastEventId, cursor)), false)
                .onComplete(opened -> {
                    if (opened.failed()) {
                        Replies.failure(ctx, opened.cause());
                    } else {
                        begin(ctx, context, opened.result());
                    }
                });
    }

    private record Open(DeliveryService delivery, DeliveryService.Stream stream) {}

    private void begin(RoutingContext ctx, Context context, Open open) {
        HttpServerResponse response = ctx.response();
        response.setChunked(true)
                .putHeader("Content-Type", "text/event-stream; charset=utf-8")
                .putHeader("Cache-Control", "no-store")
                .putHeader("Connection", "keep-alive")
                .putHeader("X-Accel-Buffering", "no");
        response.write("retry: 3000\n\n");
        next(response, context, open, open.stream().start());
    }

    private void next(HttpServerResponse response, Context context, Open open, long from) {
        if (response.closed() || response.ended()) {
            return;
        }
        if (open.delivery().parking().stopping()) {
            // The process is stopping: end the stream cleanly; the client reconnects (retry: 3000) with Last-Event-ID.
            response.end();
            return;
        }
        context.<Log.Page>executeBlocking(() -> open.stream().read(from, PAGE), false)
                .onComplete(read -> {
                    if (response.closed() || response.ended()) {
                        return;
                    }
                    if (read.failed()) {
                        ObjectNode error = io.monitorbackbone.protocol.Failures.protocolError(read.cause())
                                .toJson();
                        response.end("event: error\ndata: " + error + "\n\n");
                        return;
                    }
                    Log.Page page = read.result();
                    for (Log.Entry e : page.entries()) {
                        response.write("id: " + e.seq() + "\nevent: observation\ndata: "
                                + e.draft().served(open.stream().subscription().monitor(), e.seq(), false) + "\n\n");
                    }
                    if (!page.entries().isEmpty()) {
                        next(response, context, open, page.next());
                        return;
                    }
                    long head = page.bounds().head();
                    Future.fromCompletionStage(
                                    open.delivery()
                                            .parking()
                                            .appendAfter(open.stream().log(), head, HEARTBEAT),
                                    context)
                            .onComplete(woken -> {
                                if (open.stream().log().lastSeq() <= head
                                        && !response.closed()
                                        && !response.ended()
                                        && !open.delivery().parking().stopping()) {
                                    ObjectNode beat = Json.object();
                                    beat.put("head", head);
                                    beat.put("cursor", open.stream().committed().cursor());
                                    response.write("event: heartbeat\ndata: " + beat + "\n\n");
                                }
                                next(response, context, open, page.next());
                            });
                });
    }
}
