package io.monitorbackbone.protocol;

/** The protocol's error kinds and the one table that maps them to HTTP statuses. */
public enum ErrorCode {
    INVALID_FILTER(400),
    UNKNOWN_VOCABULARY(400),
    TIER_NOT_ASSERTABLE(400),
    INVALID(400),
    UNAUTHORIZED(401),
    CAPABILITY_MISSING(403),
    PROVENANCE_CEILING(403),
    ORIGIN_REFUSED(403),
    NOT_FOUND(404),
    DUPLICATE(409),
    CURSOR_BACKWARDS(409),
    LEASE_HELD(409),
    LEASE_LOST(409),
    EVIDENCE_REQUIRED(409),
    UNAVAILABLE(409),
    DEAD_LETTERED(409),
    CURSOR_EXPIRED(410),
    TOO_LARGE(413),
    OVER_BUDGET(429);

    private final int status;

    ErrorCode(int status) {
        this.status = status;
    }

    public int status() {
        return status;
    }
}
