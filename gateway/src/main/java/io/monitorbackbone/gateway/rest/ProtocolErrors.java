package io.monitorbackbone.gateway.rest;

import io.monitorbackbone.gateway.ServerFault;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.WebApplicationException;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one translation of a failure into what the client is told: a protocol error body {@code {code, error, done, ...}}
 * and its status. Both HTTP layers use it: the REST resources' exception mapper and the Vert.x handlers in front of them
 * (the guard, the SSE stream, the router's own refusals).
 */
public final class ProtocolErrors {
    private static final Logger LOGGER = Logger.getLogger(ProtocolErrors.class);

    private ProtocolErrors() {
    }

    /** A status and the protocol error body answered under it. */
    public record Answer(int status, ObjectNode body) {
    }

    /**
     * What a failure is answered with: a refusal its own status and body; a {@link ServerFault} 503 with what it means
     * for the request; a refusal of the REST framework (an unreadable request) the protocol error its status names;
     * anything else 500, logged, without its details.
     */
    public static Answer toProtocolError(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ProtocolException e) {
            return new Answer(e.status(), e.toJson());
        }
        if (cause instanceof ServerFault fault) {
            LOGGER.warnf("answering 503: %s", fault.answer());
            ObjectNode b = body(ErrorCode.UNAVAILABLE, fault.answer());
            if (fault.isOutcomeUnknown()) {
                b.put("outcome", "unknown");
            }
            return new Answer(503, b);
        }
        if (cause instanceof WebApplicationException web && web.getResponse() != null
                && web.getResponse().getStatus() >= 400 && web.getResponse().getStatus() < 500) {
            int status = web.getResponse().getStatus();
            return switch (status) {
                case 404, 405 -> new Answer(404, body(ErrorCode.NOT_FOUND, "unknown route"));
                case 413 -> new Answer(413, body(ErrorCode.TOO_LARGE, "the request body is too large"));
                default -> new Answer(status, body(ErrorCode.INVALID, "the request could not be read: "
                        + web.getResponse().getStatusInfo().getReasonPhrase().toLowerCase(java.util.Locale.ROOT)));
            };
        }
        LOGGER.errorf(cause, "unexpected failure");
        return new Answer(500, body(ErrorCode.UNAVAILABLE, "internal error: " + cause.getClass().getSimpleName()));
    }

    private static ObjectNode body(ErrorCode code, String message) {
        ObjectNode b = Json.object();
        b.put("code", code.name());
        b.put("error", message);
        b.set("done", Json.array(List.of()));
        return b;
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
