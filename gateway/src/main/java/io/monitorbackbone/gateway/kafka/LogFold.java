package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Seq;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * A monitor's fold brought up to its head from Kafka, for a state request whose projector fold lags further than this
 * gateway's tail reaches ({@link MonitorLog#foldOnto}). Reads through the {@link ReaderPool}; bounded, never a fold of
 * the whole log.
 */
public final class LogFold {
    private final ReaderPool pool;

    public LogFold(ReaderPool pool) {
        this.pool = pool;
    }

    /**
     * {@code base} (a fold of this log up to its {@code last_seq}) brought up to {@code head} by reading the records
     * after it from Kafka and folding them as the projector does (the record timestamp as the append time); null when
     * more than {@code maxRecords} offsets lie between, so the cost stays bounded whatever the log's length.
     */
    public Aggregate from(String monitorId, Aggregate base, long head, int maxRecords) {
        return pool.withConsumer(c -> {
            TopicPartition tp = ReaderPool.partitionOf(monitorId);
            List<TopicPartition> tps = List.of(tp);
            long begin = c.beginningOffsets(tps, ReaderPool.TIMEOUT).getOrDefault(tp, 0L);
            long end = Math.min(c.endOffsets(tps, ReaderPool.TIMEOUT).getOrDefault(tp, 0L), Seq.offsetOf(head) + 1);
            long from = Math.max(Seq.offsetOf(base.lastSeq() + 1), begin);
            if (end - from > maxRecords) {
                return null;
            }
            Aggregate[] a = {base};
            ReaderPool.range(c, tp, from, end, r -> {
                if (r.value() != null) {
                    // A record that cannot be decoded folds as an undecodable row, as the projector folds it.
                    a[0] = a[0].apply(
                            monitorId,
                            Seq.fromOffset(r.offset()),
                            ObservationCodec.decode(monitorId, r.headers(), r.value(), r.timestamp()),
                            r.timestamp());
                }
                return true;
            });
            return a[0];
        });
    }
}
