package io.monitorbackbone.gateway.rest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Failures;
import io.monitorbackbone.protocol.ProtocolException;
import jakarta.ws.rs.WebApplicationException;
import org.jboss.logging.Logger;

/**
 * REST's renderer of {@link Failures#protocolError}, the one translation of a failure into what the client is told: a
 * protocol error body {@code {code, error, done, ...}} and its status. Both HTTP layers use it: the REST resources'
 * exception mapper and the Vert.x handlers in front of them (the guard, the SSE stream, the router's own refusals).
 * The only failures it words itself are the REST framework's refusals of a request it could not read.
 */
public final class ProtocolErrors {
    private static final Logger LOGGER = Logger.getLogger(ProtocolErrors.class);

    private ProtocolErrors() {}

    /** A status and the protocol error body answered under it. */
    public record Answer(int status, ObjectNode body) {}

    /**
     * What a failure is answered with: a refusal its own status and body; a server fault 503 with what it means for the
     * request; a refusal of the REST framework (an unreadable request) the protocol error its status names; anything
     * else 500, logged, without its details.
     */
    public static Answer toProtocolError(Throwable failure) {
        Answer refused = frameworkRefusal(failure);
        if (refused != null) {
            return refused;
        }
        ProtocolException e = Failures.protocolError(failure);
        if (e.status() == ErrorCode.SERVER_FAULT_STATUS) {
            LOGGER.warnf("answering %d: %s", e.status(), e.getMessage());
        } else if (e.status() == ErrorCode.INTERNAL_ERROR_STATUS) {
            LOGGER.errorf(failure, "unexpected failure");
        }
        return new Answer(e.status(), e.toJson());
    }

    private static Answer frameworkRefusal(Throwable failure) {
        if (!(failure instanceof WebApplicationException web)
                || web.getResponse() == null
                || web.getResponse().getStatus() < 400
                || web.getResponse().getStatus() >= 500) {
            return null;
        }
        int status = web.getResponse().getStatus();
        ProtocolException e = switch (status) {
            case 404, 405 -> ProtocolException.of(ErrorCode.NOT_FOUND, "unknown route");
            case 413 -> ProtocolException.of(ErrorCode.TOO_LARGE, "the request body is too large");
            default ->
                ProtocolException.of(
                        ErrorCode.INVALID,
                        "the request could not be read: "
                                + web.getResponse()
                                        .getStatusInfo()
                                        .getReasonPhrase()
                                        .toLowerCase(java.util.Locale.ROOT));
        };
        // The framework's own status stays (406, 415, ...); the body says why in the protocol's words.
        return new Answer(status == 405 ? 404 : status, e.toJson());
    }
}
