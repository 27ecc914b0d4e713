package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.Lifecycle;
import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** A subscription's leases: claim, renew, complete, release, reject (the service refuses any other action). */
@Path(Answers.BASE + "/subscriptions/{id}/leases")
public class LeasesResource {
    @Inject
    Lifecycle lifecycle;

    @POST
    @Path("{action}")
    @Operation(summary = "Claim, renew, complete, release or reject leases")
    public Response act(@PathParam("id") String id, @PathParam("action") String action,
                        @HeaderParam("Authorization") String authorization, byte[] body) {
        return Answers.reply(Answers.services(lifecycle).leases().act(id, Answers.bearer(authorization), action, Answers.body(body)));
    }
}
