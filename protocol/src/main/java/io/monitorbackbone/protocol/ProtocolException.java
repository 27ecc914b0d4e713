package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every refusal the protocol defines. Rendered as {@code {code, error, done, ...details}}; the HTTP status comes
 * from {@link ErrorCode#status()}, never from the message, except for the two answers that are the server's own fault
 * rather than the request's ({@link #serverFault}, {@link #internalError}), whose statuses are the table's
 * {@link ErrorCode#SERVER_FAULT_STATUS} and {@link ErrorCode#INTERNAL_ERROR_STATUS}.
 * {@link Failures#protocolError} turns any failure into one of these.
 */
public final class ProtocolException extends RuntimeException {
    private final ErrorCode code;
    private final int status;
    private final Map<String, Object> details = new LinkedHashMap<>();

    public ProtocolException(ErrorCode code, String message) {
        this(code, code.status(), message);
    }

    private ProtocolException(ErrorCode code, int status, String message) {
        super(message, null, false, false);
        this.code = code;
        this.status = status;
    }

    public static ProtocolException of(ErrorCode code, String message) {
        return new ProtocolException(code, message);
    }

    // ---- the server's own faults: code UNAVAILABLE, the status stated here (a paused monitor stays 409) ----

    /**
     * The server could not do what it should; {@code answer} says what is true of the request and what to do. With
     * {@code outcomeUnknown} the body carries {@code outcome: "unknown"}: the write may have taken effect.
     */
    public static ProtocolException serverFault(String answer, boolean outcomeUnknown) {
        ProtocolException e = new ProtocolException(ErrorCode.UNAVAILABLE, ErrorCode.SERVER_FAULT_STATUS, answer);
        return outcomeUnknown ? e.with("outcome", "unknown") : e;
    }

    /** A failure nobody expected; {@code kind} names what failed (a class name), never the failure's text. */
    public static ProtocolException internalError(String kind) {
        return new ProtocolException(ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL_ERROR_STATUS, "internal error: " + kind);
    }

    // ---- the refusals every binding and service words alike ----

    /** A monitor that does not exist or that the bearer may not see: the same answer, so existence does not leak. */
    public static ProtocolException monitorNotFound() {
        return of(ErrorCode.NOT_FOUND, "monitor not found");
    }

    /** A subscription that does not exist or whose token the bearer does not hold. */
    public static ProtocolException subscriptionNotFound() {
        return of(ErrorCode.NOT_FOUND, "subscription not found");
    }

    /** What only the monitor's owner may do, asked without the owner token. */
    public static ProtocolException ownerTokenRequired() {
        return of(ErrorCode.UNAUTHORIZED, "owner bearer token required");
    }

    /** A create for an id that is already a monitor. */
    public static ProtocolException monitorExists(String id) {
        return of(ErrorCode.DUPLICATE, "monitor exists; use /update").with("id", id);
    }

    /** An ack or a re-subscription that would move a cursor back; {@code cursor} is where it stands. */
    public static ProtocolException cursorBackwards(long cursor, long requested) {
        return of(ErrorCode.CURSOR_BACKWARDS, "a cursor does not move backwards; use /seek with a reason")
                .with("cursor", cursor)
                .with("requested", requested);
    }

    /** A cursor that is not a non-negative integer; {@code value} is what was sent (null: not shown). */
    public static ProtocolException badCursor(Object value) {
        return of(ErrorCode.INVALID, "cursor must be a non-negative integer").with("cursor", value);
    }

    /** A JSON-RPC or MCP message whose {@code params} is not an object. */
    public static ProtocolException paramsNotObject() {
        return of(ErrorCode.INVALID, "params must be an object");
    }

    /** A lease call without its subject. */
    public static ProtocolException subjectRequired() {
        return of(ErrorCode.INVALID, "subject required").with("field", "subject");
    }

    /** A path or method nothing answers; {@code what} names it as the client sent it. */
    public static ProtocolException unknownRoute(String what) {
        return of(ErrorCode.NOT_FOUND, "unknown route: " + what);
    }

    public ProtocolException with(String key, Object value) {
        details.put(key, value);
        return this;
    }

    public ErrorCode code() {
        return code;
    }

    /** The HTTP status: the code's, or 503/500 for the server's own faults. */
    public int status() {
        return status;
    }

    public Map<String, Object> details() {
        return details;
    }

    public ObjectNode toJson() {
        ObjectNode body = Json.object();
        body.put("code", code.name());
        body.put("error", getMessage());
        body.set("done", Json.MAPPER.valueToTree(List.of()));
        details.forEach((k, v) -> body.set(k, Json.MAPPER.valueToTree(v)));
        return body;
    }
}
