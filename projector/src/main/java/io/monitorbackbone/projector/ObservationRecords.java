package io.monitorbackbone.projector;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.ObservationCodec;
import org.apache.kafka.common.header.Headers;

/**
 * Reads a record of a monitor's log (CloudEvents binary mode, docs/adr/0005) back into the observation the gateway
 * serves for it, so the projector folds exactly what readers see.
 */
final class ObservationRecords {
    private ObservationRecords() {}

    /**
     * @param timestamp the record's timestamp: the observation's time when the event carries none
     * @return the observation, or an {@code ai.mentu.monitor.undecodable} row for a record that cannot be decoded
     */
    static ObjectNode served(String monitorId, long seq, Headers headers, byte[] value, long timestamp) {
        return ObservationCodec.decode(monitorId, headers, value, timestamp).served(monitorId, seq, false);
    }
}
