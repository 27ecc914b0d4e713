package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.service.Log.Bounds;
import io.monitorbackbone.gateway.service.Log.Entry;
import io.monitorbackbone.gateway.service.Log.Page;
import io.monitorbackbone.gateway.service.Log.Stamped;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Seq;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;

/**
 * The reads of monitors' logs: their bounds, and a page of matching observations from a seq (with, when asked, the
 * count of what matches on to the head: a subscription's lag). Every read takes the log's bounds from the broker,
 * through a consumer of the {@link ReaderPool}. What caches is this gateway's in-memory tail of each log
 * ({@link MonitorLog}, held by the {@link Catalog} and kept by the follower, {@code MP_TAIL_CACHE_ENTRIES} entries):
 * a page that the tail holds up to the broker's head is served from it instead of fetched, so a read near the head
 * costs no fetch and still sees exactly what the broker has acknowledged. Bounds are never cached. The page itself is
 * filled by a {@link PageScan}; folding a log for a state request is {@link LogFold}'s.
 */
public final class LogReader {
    private final ReaderPool pool;
    private final Function<String, MonitorLog> tails;
    private final Heads heads;

    /**
     * @param tails each monitor's in-memory tail, kept by the follower: a read that it covers up to the broker's head is
     *              served from memory instead of fetched
     */
    public LogReader(ReaderPool pool, Function<String, MonitorLog> tails, Heads heads) {
        this.pool = pool;
        this.tails = tails;
        this.heads = heads;
    }

    /** The seq of a monitor's last record, given the log end offset the broker reported. */
    @FunctionalInterface
    public interface Heads {
        long lastRecordSeq(String monitorId, long endOffset);
    }

    public Bounds bounds(String monitorId) {
        return bounds(List.of(monitorId)).get(monitorId);
    }

    public Map<String, Bounds> bounds(Collection<String> monitorIds) {
        if (monitorIds.isEmpty()) {
            return Map.of();
        }
        return pool.withConsumer(c -> {
            List<TopicPartition> tps =
                    monitorIds.stream().map(ReaderPool::partitionOf).toList();
            Map<TopicPartition, Long> begin = c.beginningOffsets(tps, ReaderPool.TIMEOUT);
            Map<TopicPartition, Long> end = c.endOffsets(tps, ReaderPool.TIMEOUT);
            Map<String, Bounds> out = new HashMap<>();
            for (TopicPartition tp : tps) {
                String id = Topics.monitorOf(tp.topic());
                out.put(id, bounds(id, begin.get(tp), end.get(tp)));
            }
            return out;
        });
    }

    /**
     * Kafka's offsets-for-times on the monitor's partition: the first offset whose record timestamp is at or after
     * {@code time} (milliseconds, a fraction rounded up so nothing earlier is included), at or above the log start.
     * The gateway and the bridge leave the timestamp to the producer (CreateTime, the producer's clock at the send).
     */
    public Stamped firstAtOrAfter(String monitorId, Instant time) {
        long millis = time.toEpochMilli() + (time.getNano() % 1_000_000 == 0 ? 0 : 1);
        return pool.withConsumer(c -> {
            TopicPartition tp = ReaderPool.partitionOf(monitorId);
            OffsetAndTimestamp found =
                    c.offsetsForTimes(Map.of(tp, millis), ReaderPool.TIMEOUT).get(tp);
            return found == null
                    ? null
                    : new Stamped(Seq.fromOffset(found.offset()), Instant.ofEpochMilli(found.timestamp()));
        });
    }

    /**
     * Offsets skip where transactions committed or aborted, so the log end offset is not the last record's seq in
     * general: the head is taken from this gateway's follower once it has read up to that end.
     */
    private Bounds bounds(String monitorId, Long begin, Long end) {
        long b = begin == null ? 0 : begin;
        long e = end == null ? 0 : end;
        // The follower may already be past e; a read stops at e, so the head must not pass it either.
        long last = b >= e ? 0 : Math.min(heads.lastRecordSeq(monitorId, e), e);
        // An empty retained log: every record is gone and only the end says how far it went.
        return new Bounds(last > 0 ? last : e, Seq.fromOffset(b), e);
    }

    /**
     * Reads matching observations from {@code fromSeq}. With {@code count}, goes on to the head counting what matches
     * (at most {@link PageScan#LAG_SCAN_LIMIT} more records), which is a subscription's lag when {@code fromSeq} is its
     * cursor.
     */
    public Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count) {
        return pool.withConsumer(c -> {
            TopicPartition tp = ReaderPool.partitionOf(monitorId);
            List<TopicPartition> tps = List.of(tp);
            Bounds b = bounds(
                    monitorId,
                    c.beginningOffsets(tps, ReaderPool.TIMEOUT).get(tp),
                    c.endOffsets(tps, ReaderPool.TIMEOUT).get(tp));
            PageScan scan = new PageScan(monitorId, filter, limit, count, b);
            long startSeq = Math.max(fromSeq, b.floor());
            List<Entry> cached = tails.apply(monitorId).tail(startSeq, b.head());
            if (cached != null) {
                for (Entry e : cached) {
                    if (!scan.accept(e.seq(), e.draft())) {
                        break;
                    }
                }
                return scan.page();
            }
            ReaderPool.range(c, tp, Seq.offsetOf(startSeq), b.end(), r -> {
                long seq = Seq.fromOffset(r.offset());
                // Past the page, a filter that passes everything only counts: no record needs decoding.
                return scan.countsOnly()
                        ? scan.count(seq)
                        : scan.accept(seq, ObservationCodec.decode(monitorId, r.headers(), r.value(), r.timestamp()));
            });
            return scan.page();
        });
    }
}
