package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.service.AdminService;
import io.monitorbackbone.protocol.request.Compact;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;

/** The operator's calls (MP_ADMIN_TOKEN): a snapshot of what the process holds, the bridges' lag, and compaction. */
@Path(Answers.BASE + "/admin")
public class AdminResource {
    @Inject
    AdminService admin;

    @GET
    @Path("snapshot")
    @Operation(summary = "What this gateway holds: monitors, subscriptions, leases, counters (admin token)")
    public Response snapshot(@HeaderParam("Authorization") String authorization) {
        return Answers.reply(admin.snapshot(Answers.bearer(authorization)));
    }

    @GET
    @Path("bridges")
    @Operation(
            summary = "Every bridged monitor's lag behind its Kafka source and what its records became (admin token)")
    public Response bridges(@HeaderParam("Authorization") String authorization) {
        return Answers.reply(admin.bridges(Answers.bearer(authorization)));
    }

    @GET
    @Path("bridges/{id}")
    @Operation(summary = "One bridged monitor's lag behind its Kafka source, per partition (admin token)")
    public Response bridge(@HeaderParam("Authorization") String authorization, @PathParam("id") String id) {
        return Answers.reply(admin.bridge(Answers.bearer(authorization), id));
    }

    @POST
    @Path("compact")
    @Operation(summary = "Drop the observations up to upto_seq of one monitor, or of all (admin token)")
    public Response compact(@HeaderParam("Authorization") String authorization, byte[] body) {
        String bearer = Answers.bearer(authorization);
        // Who may ask comes before the body: without the admin token configured these paths do not exist (404), and
        // a body error must not tell otherwise.
        admin.authorize(bearer, AdminService.COMPACT);
        return Answers.reply(admin.compact(bearer, Compact.parse(Answers.body(body))));
    }
}
