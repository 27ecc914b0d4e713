package io.monitorbackbone.projector;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.protocol.Draft;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Reads a record of a monitor's log (CloudEvents binary mode, docs/adr/0005) back as the gateway reads it, so the
 * projector folds exactly what readers see.
 */
final class ObservationRecords {
    private ObservationRecords() {}

    /**
     * @param headers   the log record's headers, unframed ({@link ByMonitorRecord}), or as an earlier version's
     *                  repartition carried them ({@link ProjectorTopology#SEQ_HEADER} included, which is not decoded)
     * @param timestamp the record's timestamp: the observation's time when the event carries none
     * @return the observation before its seq, or an {@code ai.mentu.monitor.undecodable} row for a record that cannot
     *     be decoded
     */
    static Draft decode(String monitorId, Headers headers, byte[] value, long timestamp) {
        return ObservationCodec.decode(monitorId, withoutSeq(headers), value, timestamp);
    }

    /**
     * The headers the record's writer gave it. The repartition's {@code mp_seq} is the projector's own; left in, it
     * made every record one the codec's reader of the server's own records does not know, so each went through the
     * CloudEvents SDK's slower reader (the same observation, at twice the cost).
     */
    static Headers withoutSeq(Headers headers) {
        if (headers.lastHeader(ProjectorTopology.SEQ_HEADER) == null) {
            return headers;
        }
        RecordHeaders own = new RecordHeaders();
        for (Header h : headers) {
            if (!ProjectorTopology.SEQ_HEADER.equals(h.key())) {
                own.add(h);
            }
        }
        return own;
    }
}
