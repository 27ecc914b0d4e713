package io.monitorbackbone.gateway.rest;

import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * Every failure of a resource, and every refusal of the REST framework itself, answered as a protocol error body: a
 * path or method no resource serves is {@code 404 unknown route: METHOD /path}, as for paths no route matches at all.
 */
@Provider
public class ErrorMapper implements ExceptionMapper<Throwable> {
    @Context
    HttpServerRequest request;

    @Override
    public Response toResponse(Throwable failure) {
        Throwable answered = failure instanceof NotFoundException || failure instanceof NotAllowedException
                ? Answers.unknownRoute(request.method().name(), request.path())
                : failure;
        return Answers.error(ProtocolErrors.toProtocolError(answered));
    }
}
