package io.monitorbackbone.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import java.nio.charset.StandardCharsets;

/**
 * What one source partition of a bridged monitor has become, counted in the metadata of the offsets the bridge commits
 * in each batch's transaction (docs/adr/0015-bridge.md): records bridged as observations, refused as {@code rejected}
 * rows, and sent to the dead letters. Committed with the rows they count, so they are exact across kill -9 and every
 * process with the role, and anyone who may read the group's offsets reads them.
 *
 * @param bridged      records written as observations
 * @param rejected     records the protocol refused, written as {@code ai.mentu.monitor.rejected} rows
 * @param deadLettered records that could not be decoded, written to {@code mp.bridge.dead-letters}
 */
public record BridgeCounts(long bridged, long rejected, long deadLettered) {
    public static final BridgeCounts ZERO = new BridgeCounts(0, 0, 0);

    /** These counts and one more record of each outcome given. */
    BridgeCounts plus(long bridged, long rejected, long deadLettered) {
        return new BridgeCounts(this.bridged + bridged, this.rejected + rejected, this.deadLettered + deadLettered);
    }

    /** The offset metadata these counts are committed as: a small JSON object, well under Kafka's 4 KiB limit. */
    public String metadata() {
        return "{\"bridged\":" + bridged + ",\"rejected\":" + rejected + ",\"dead_lettered\":" + deadLettered + "}";
    }

    /**
     * The counts an offset's metadata carries, or null when it carries none: an offset committed before the bridge
     * counted, or by something else than the bridge.
     */
    public static BridgeCounts parse(String metadata) {
        if (metadata == null || metadata.isEmpty() || metadata.charAt(0) != '{') {
            return null;
        }
        try {
            JsonNode n = Json.read(metadata.getBytes(StandardCharsets.UTF_8));
            if (!n.path("bridged").canConvertToLong()
                    || !n.path("rejected").canConvertToLong()
                    || !n.path("dead_lettered").canConvertToLong()) {
                return null;
            }
            return new BridgeCounts(
                    n.get("bridged").asLong(),
                    n.get("rejected").asLong(),
                    n.get("dead_lettered").asLong());
        } catch (RuntimeException e) {
            return null;
        }
    }
}
