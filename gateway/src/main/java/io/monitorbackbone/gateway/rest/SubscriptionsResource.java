package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.service.DeliveryService;
import io.monitorbackbone.gateway.service.SubscriptionService;
import io.monitorbackbone.protocol.request.Ack;
import io.monitorbackbone.protocol.request.Pull;
import io.monitorbackbone.protocol.request.RetireSubscription;
import io.monitorbackbone.protocol.request.Seek;
import io.monitorbackbone.protocol.request.Subscribe;
import io.smallrye.common.annotation.Blocking;
import io.vertx.ext.web.RoutingContext;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/**
 * Subscriptions and their feeds: subscribe, pull, ack, seek, renew, retire. The SSE stream of a subscription is
 * {@code http/StreamRoute} (see ADR 0012).
 */
@Path(Answers.BASE + "/subscriptions")
public class SubscriptionsResource {
    @Inject
    DeliveryService delivery;

    @Inject
    SubscriptionService subscriptions;

    @POST
    @Operation(summary = "Subscribe a reader to a monitor; the answer carries the subscription's token, shown once")
    @APIResponse(responseCode = "201", description = "{subscription, token}: subscribed")
    public Response subscribe(@HeaderParam("Authorization") String authorization, byte[] body) {
        return Answers.reply(
                subscriptions.subscribe(Subscribe.parse(Answers.body(body)), Answers.bearer(authorization)));
    }

    /**
     * Reads at once, or parks up to {@code wait} seconds on the monitor's tail without holding a thread. The access
     * check before it may wait for the tables to catch up, so the call itself starts on a worker thread.
     */
    @GET
    @Path("{id}/pull")
    @Blocking
    @Operation(
            summary = "Pull from the subscription's cursor (never moves it); ?wait parks until something arrives;"
                    + " ?large_pages=true lets limit reach 5,000 (io.monitorbackbone/large-pages)")
    public CompletionStage<Response> pull(
            @PathParam("id") String id,
            @HeaderParam("Authorization") String authorization,
            @Context RoutingContext request) {
        return delivery.pull(id, Answers.bearer(authorization), Pull.fromQuery(query(request)))
                .thenApply(Answers::reply);
    }

    @POST
    @Path("{id}/ack")
    @Operation(summary = "Acknowledge up to a cursor")
    public Response ack(@PathParam("id") String id, @HeaderParam("Authorization") String authorization, byte[] body) {
        return Answers.reply(delivery.ack(id, Answers.bearer(authorization), Ack.parse(Answers.body(body))));
    }

    @POST
    @Path("{id}/seek")
    @Operation(summary = "Move the cursor to a seq or a time")
    public Response seek(@PathParam("id") String id, @HeaderParam("Authorization") String authorization, byte[] body) {
        return Answers.reply(subscriptions.seek(id, Answers.bearer(authorization), Seek.parse(Answers.body(body))));
    }

    @POST
    @Path("{id}/renew")
    @Operation(summary = "Renew the subscription before it expires")
    public Response renew(@PathParam("id") String id, @HeaderParam("Authorization") String authorization) {
        return Answers.reply(subscriptions.renew(id, Answers.bearer(authorization)));
    }

    @POST
    @Path("{id}/retire")
    @Operation(summary = "Retire the subscription")
    public Response retire(
            @PathParam("id") String id, @HeaderParam("Authorization") String authorization, byte[] body) {
        return Answers.reply(
                subscriptions.retire(id, Answers.bearer(authorization), RetireSubscription.parse(Answers.body(body))));
    }

    /** The query as sent, in its order, each name with all its values. */
    private static Map<String, List<String>> query(RoutingContext request) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String name : request.queryParams().names()) {
            out.put(name, request.queryParams().getAll(name));
        }
        return out;
    }
}
