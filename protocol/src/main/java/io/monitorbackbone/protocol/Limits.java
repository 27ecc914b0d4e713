package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The bounds this server advertises in discover and applies to every pull. */
public final class Limits {
    public static final int MAX_LIMIT = 200;
    public static final int DEFAULT_LIMIT = 50;
    public static final int MAX_WAIT_SECONDS = 50;
    public static final long RETIRE_AFTER_MUTE_SECONDS_DEFAULT = 604_800;
    /** Calls one JSON-RPC batch may hold; a batch runs its calls one after another. */
    public static final int MAX_BATCH_CALLS = 100;
    /** Observations one batch publish may hold (beyond the protocol, {@code io.monitorbackbone/batch-publish}). */
    public static final int MAX_BATCH_OBSERVATIONS = 1_000;
    /** Bytes one batch publish may hold: the request body limit every POST has. */
    public static final int MAX_BATCH_BYTES = 1_048_576;
    /**
     * The largest page a reader that asks for large pages ({@code large_pages=true}, {@code io.monitorbackbone/large-pages})
     * is served; a pull that does not ask is clamped to {@link #MAX_LIMIT}, as the protocol specifies.
     */
    public static final int LARGE_PAGE_MAX_LIMIT = 5_000;
    /** The pull key that asks for large pages. */
    public static final String LARGE_PAGES = "large_pages";

    public static final int DELIVERY_COUNT_LIMIT = Monitor.DEFAULT_DELIVERY_COUNT_LIMIT;

    private Limits() {}

    /** The {@code limits} block of a served monitor. */
    public static ObjectNode forMonitor(long retentionFloor) {
        ObjectNode l = Json.object();
        l.put("max_limit", MAX_LIMIT);
        l.put("default_limit", DEFAULT_LIMIT);
        l.put("max_wait_seconds", MAX_WAIT_SECONDS);
        l.put("retention_floor", retentionFloor);
        l.put("auth_required", true);
        return l;
    }
}
