package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.service.LeaseService;
import io.monitorbackbone.protocol.request.LeaseCall;
import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;

/**
 * A subscription's leases: claim, renew, complete, release, reject. Any other action is the service's refusal (404
 * {@code unknown route: leases/<action>}), as it always was, so the path takes any segment.
 */
@Path(Answers.BASE + "/subscriptions/{id}/leases")
public class LeasesResource {
    @Inject
    LeaseService leases;

    @POST
    @Path("{action}")
    @Operation(summary = "Claim, renew, complete, release or reject leases")
    public Response act(
            @PathParam("id") String id,
            @Parameter(
                            schema =
                                    @Schema(
                                            type = SchemaType.STRING,
                                            enumeration = {"claim", "renew", "complete", "release", "reject"}))
                    @PathParam("action")
                    String action,
            @HeaderParam("Authorization") String authorization,
            byte[] body) {
        return Answers.reply(
                leases.act(id, Answers.bearer(authorization), LeaseCall.parse(action, Answers.body(body))));
    }
}
