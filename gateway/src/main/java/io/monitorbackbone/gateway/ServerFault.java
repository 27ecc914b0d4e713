package io.monitorbackbone.gateway;

/**
 * The server could not do what it should (Kafka unreachable, a write not acknowledged). Answered 503 with a protocol
 * error body: the request was fine, nothing was acknowledged, and it may be retried.
 */
public final class ServerFault extends RuntimeException {
    public ServerFault(String message, Throwable cause) {
        super(message, cause);
    }
}
