package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.service.PublishService;
import io.vertx.ext.web.RoutingContext;
import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** A monitor's observations: publish (answered once Kafka acknowledged the write; a refusal is recorded as rejected). */
@Path(Answers.BASE + "/monitors/{id}/observations")
public class ObservationsResource {
    @Inject
    PublishService publishing;

    @POST
    @Operation(summary = "Publish an observation (the monitor's owner token)")
    @APIResponse(responseCode = "201", description = "{observation, seq}: acknowledged by Kafka")
    @RequestBody(content = @Content(mediaType = "application/json"))
    public CompletionStage<Response> publish(
            @PathParam("id") String id,
            @HeaderParam("Authorization") String authorization,
            @Context RoutingContext request) {
        // Not blocking: runs on the event loop and completes from the producer's acknowledgements. The body is the one
        // http/RawBody read (on the event loop Quarkus REST would read an entity over 10 KiB from the consumed
        // request).
        String bearer = Answers.bearer(authorization);
        return publishing.publish(id, bearer, Answers.raw(request)).thenApply(Answers::reply);
    }

    @POST
    @Path("batch")
    @Operation(
            summary = "Publish a batch of observations (the monitor's owner token; io.monitorbackbone/batch-publish)")
    @APIResponse(
            responseCode = "200",
            description = "{results, accepted, rejected, failed}: one result per observation in order, each {status:"
                    + " 201, seq} or its protocol error with status and rejected_seq; sent once Kafka acknowledged every"
                    + " row")
    @RequestBody(content = @Content(mediaType = "application/json"))
    public CompletionStage<Response> publishBatch(
            @PathParam("id") String id,
            @HeaderParam("Authorization") String authorization,
            @Context RoutingContext request) {
        // As publish: on the event loop, completed from the producer's acknowledgements.
        String bearer = Answers.bearer(authorization);
        return publishing.publishBatch(id, bearer, Answers.raw(request)).thenApply(Answers::reply);
    }
}
