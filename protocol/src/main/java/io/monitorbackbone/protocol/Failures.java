package io.monitorbackbone.protocol;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The one translation of a failure into the protocol error a client is shown, whatever the transport (REST, JSON-RPC,
 * MCP, SSE): each binding renders the {@link ProtocolException} this returns, it never decides the answer itself.
 */
public final class Failures {
    private Failures() {}

    /**
     * A refusal as it is; a {@link ServerFault} as {@code 503 UNAVAILABLE} with the fault's answer (and
     * {@code outcome: "unknown"} when the write may have happened); anything else as {@code 500 UNAVAILABLE
     * "internal error: <class>"}, never with the failure's own text, which may hold anything. The wrappers of
     * asynchronous code ({@link CompletionException}, {@link ExecutionException}) are looked through.
     */
    public static ProtocolException protocolError(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ProtocolException refusal) {
            return refusal;
        }
        if (cause instanceof ServerFault fault) {
            return ProtocolException.serverFault(fault.answer(), fault.isOutcomeUnknown());
        }
        return ProtocolException.internalError(
                cause == null ? "null" : cause.getClass().getSimpleName());
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
