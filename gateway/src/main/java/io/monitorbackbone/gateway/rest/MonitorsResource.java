package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.service.MonitorService;
import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.protocol.Discover;
import io.monitorbackbone.protocol.request.ConfigureMonitor;
import io.monitorbackbone.protocol.request.CreateMonitor;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;

/** {@code discover} and the monitors: create, list, get, update/pause/resume/retire, state. */
@Path(Answers.BASE)
public class MonitorsResource {
    @Inject
    MonitorService monitors;

    @GET
    @Path("discover")
    @Operation(summary = "What this server speaks: versions, capabilities, extensions and limits")
    public Response discover() {
        return Answers.reply(Reply.of(200, Discover.document()));
    }

    @POST
    @Path("monitors")
    @Operation(summary = "Create a monitor; the answer carries its owner_token, shown once")
    @APIResponse(responseCode = "201", description = "{monitor, owner_token}: the monitor, created")
    public Response create(@HeaderParam("Authorization") String authorization, byte[] body) {
        return Answers.reply(monitors.create(CreateMonitor.parse(Answers.body(body)), Answers.bearer(authorization)));
    }

    @GET
    @Path("monitors")
    @Operation(summary = "The monitors the caller may see")
    public Response list(@HeaderParam("Authorization") String authorization) {
        return Answers.reply(monitors.list(Answers.bearer(authorization)));
    }

    @GET
    @Path("monitors/{id}")
    @Operation(summary = "One monitor's definition")
    public Response get(@PathParam("id") String id, @HeaderParam("Authorization") String authorization) {
        return Answers.reply(monitors.get(id, Answers.bearer(authorization)));
    }

    @POST
    @Path("monitors/{id}/{action: update|pause|resume|retire}")
    @Operation(summary = "Update, pause, resume or retire a monitor (its owner)")
    public Response configure(
            @PathParam("id") String id,
            @PathParam("action") String action,
            @HeaderParam("Authorization") String authorization,
            byte[] body) {
        return Answers.reply(monitors.configure(
                id, ConfigureMonitor.parse(action, Answers.body(body)), Answers.bearer(authorization)));
    }

    @GET
    @Path("monitors/{id}/state")
    @Operation(summary = "A monitor's computed state")
    public Response state(@PathParam("id") String id, @HeaderParam("Authorization") String authorization) {
        return Answers.reply(monitors.state(id, Answers.bearer(authorization)));
    }
}
