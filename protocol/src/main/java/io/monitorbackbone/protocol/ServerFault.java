package io.monitorbackbone.protocol;

/**
 * The server could not do what it should (Kafka unreachable, a write not acknowledged). {@link Failures#protocolError}
 * answers it 503 UNAVAILABLE ({@link ErrorCode#SERVER_FAULT_STATUS}) with a protocol
 * error body whose text says what is true of the request: by default that nothing was acknowledged and it may be
 * retried; where a write may have taken effect, that the outcome is unknown and how a retry settles it
 * ({@link #outcomeUnknown}).
 */
public final class ServerFault extends RuntimeException {
    private final String advice;
    private final boolean outcomeUnknown;

    public ServerFault(String message, Throwable cause) {
        this(message, "nothing was acknowledged, retry", false, cause);
    }

    private ServerFault(String message, String advice, boolean outcomeUnknown, Throwable cause) {
        super(message, cause);
        this.advice = advice;
        this.outcomeUnknown = outcomeUnknown;
    }

    /** A fault with what it means for the request and what a client should do about it. */
    public static ServerFault withAdvice(String message, String advice, Throwable cause) {
        return new ServerFault(message, advice, false, cause);
    }

    /** A fault after which the request may or may not have taken effect; {@code advice} says how a retry settles it. */
    public static ServerFault outcomeUnknown(String message, String advice, Throwable cause) {
        return new ServerFault(message, advice, true, cause);
    }

    /** The message a client is shown: what failed and what that means for the request. */
    public String answer() {
        return getMessage() + "; " + advice;
    }

    public boolean isOutcomeUnknown() {
        return outcomeUnknown;
    }
}
