package io.monitorbackbone.protocol;

/**
 * The protocol's error kinds and the one table that maps them to HTTP statuses and JSON-RPC error codes.
 * {@code UNAVAILABLE}'s 409 is the monitor's own state (paused or retired: "paused means paused"); when the server
 * itself cannot answer, the same code goes out under {@link #SERVER_FAULT_STATUS} or {@link #INTERNAL_ERROR_STATUS}
 * (see {@link ProtocolException#serverFault} and {@link Failures#protocolError}).
 */
public enum ErrorCode {
    INVALID_FILTER(400, -32000),
    UNKNOWN_VOCABULARY(400, -32001),
    TIER_NOT_ASSERTABLE(400, -32002),
    INVALID(400, -32003),
    UNAUTHORIZED(401, -32005),
    CAPABILITY_MISSING(403, -32004),
    PROVENANCE_CEILING(403, -32014),
    ORIGIN_REFUSED(403, -32015),
    NOT_FOUND(404, -32006),
    DUPLICATE(409, -32007),
    CURSOR_BACKWARDS(409, -32008),
    LEASE_HELD(409, -32010),
    LEASE_LOST(409, -32011),
    EVIDENCE_REQUIRED(409, -32012),
    UNAVAILABLE(409, -32017),
    DEAD_LETTERED(409, -32018),
    CURSOR_EXPIRED(410, -32009),
    TOO_LARGE(413, -32016),
    OVER_BUDGET(429, -32013);

    /** {@code UNAVAILABLE} when the server could not do it now (Kafka away, a write not acknowledged): retry. */
    public static final int SERVER_FAULT_STATUS = 503;
    /** {@code UNAVAILABLE} for a failure the server did not expect; its body never shows the failure's own text. */
    public static final int INTERNAL_ERROR_STATUS = 500;

    private final int status;
    private final int rpcCode;

    ErrorCode(int status, int rpcCode) {
        this.status = status;
        this.rpcCode = rpcCode;
    }

    public int rpcCode() {
        return rpcCode;
    }

    public int status() {
        return status;
    }
}
