package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.service.Reply;
import io.monitorbackbone.gateway.service.Rpc;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * JSON-RPC 2.0 over the same services: a call or a batch, always answered 200 with the JSON-RPC answer; Rpc runs each
 * call on Quarkus's worker pool and the answer completes when the last one has. The method starts on a worker too
 * ({@code @Blocking}): on the event loop, Quarkus REST reads an entity over its input buffer (10 KiB) from the request
 * again instead of from the body {@code http/RawBody} has already read, and a large batch would arrive empty.
 */
@Path(Answers.BASE + "/rpc")
public class RpcResource {
    @Inject
    Rpc rpc;

    @POST
    @Blocking
    @Operation(summary = "A JSON-RPC 2.0 call or batch (monitors/*, feeds/*, leases/*)")
    public CompletionStage<Response> call(@HeaderParam("Authorization") String authorization, byte[] body) {
        String bearer = Answers.bearer(authorization);
        byte[] raw = Answers.raw(body);
        return rpc.handle(raw, bearer).thenApply(answer -> Answers.reply(Reply.of(200, answer)));
    }
}
