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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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
     * What the counts past pages found (filters that pass everything only), by monitor and the seq each starts at: the
     * ack of a page counts its lag from the page's {@code next}, which the pull's count has just read past, so it
     * reads only what was appended since instead of the same records again.
     */
    private final CountsAfterPages counts = new CountsAfterPages(CountsAfterPages.DEFAULT_ENTRIES);

    /**
     * @param tails each monitor's in-memory tail, kept by the follower: a read that it covers up to the broker's head is
     *              served from memory instead of fetched
     */
    public LogReader(ReaderPool pool, Function<String, MonitorLog> tails, Heads heads) {
        this.pool = pool;
        this.tails = tails;
        this.heads = heads;
    }

    /**
     * The seq of a monitor's last record, given the log end offset the broker reported, from this gateway's follower;
     * null when the follower does not read the log, whose last record the reader then finds in the log itself.
     */
    @FunctionalInterface
    public interface Heads {
        Long lastRecordSeq(String monitorId, long endOffset);
    }

    /** Offsets a head lookup of a log that is not followed reads back from its end, at first. */
    static final int HEAD_PROBE = 8;

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
            return bounds(c, tps);
        });
    }

    private Map<String, Bounds> bounds(KafkaConsumer<byte[], byte[]> c, List<TopicPartition> tps) {
        Map<TopicPartition, Long> begin = c.beginningOffsets(tps, ReaderPool.TIMEOUT);
        Map<TopicPartition, Long> end = c.endOffsets(tps, ReaderPool.TIMEOUT);
        Map<TopicPartition, Long> lastSeqs = new HashMap<>();
        Map<TopicPartition, long[]> unfollowed = new HashMap<>();
        for (TopicPartition tp : tps) {
            long b = begin.getOrDefault(tp, 0L);
            long e = end.getOrDefault(tp, 0L);
            if (b >= e) {
                lastSeqs.put(tp, 0L);
                continue;
            }
            Long followed = heads.lastRecordSeq(Topics.monitorOf(tp.topic()), e);
            if (followed == null) {
                unfollowed.put(tp, new long[] {b, e});
            } else {
                // The follower may already be past e; a read stops at e, so the head must not pass it either.
                lastSeqs.put(tp, Math.min(followed, e));
            }
        }
        lastSeqs.putAll(lastRecords(c, unfollowed));
        Map<String, Bounds> out = new HashMap<>();
        for (TopicPartition tp : tps) {
            long b = begin.getOrDefault(tp, 0L);
            long e = end.getOrDefault(tp, 0L);
            long last = lastSeqs.getOrDefault(tp, 0L);
            // An empty retained log: every record is gone and only the end says how far it went.
            out.put(Topics.monitorOf(tp.topic()), new Bounds(last > 0 ? last : e, Seq.fromOffset(b), e));
        }
        return out;
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
     * The seq of each log's last committed record before its end, read from the logs themselves (for logs the follower
     * does not read), all in the same fetches: a few offsets back from each end, further back only where those held no
     * record (transaction markers, aborted writes). 0 for a log with no committed record left.
     *
     * @param ranges each partition's beginning and end offsets
     */
    static Map<TopicPartition, Long> lastRecords(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, long[]> ranges) {
        Map<TopicPartition, Long> last = new HashMap<>();
        Map<TopicPartition, long[]> window = new HashMap<>();
        ranges.forEach((tp, r) -> window.put(tp, new long[] {Math.max(r[0], r[1] - HEAD_PROBE), r[1]}));
        long span = HEAD_PROBE;
        long deadline = System.nanoTime() + ReaderPool.TIMEOUT.toNanos();
        while (!window.isEmpty()) {
            c.assign(window.keySet());
            window.forEach((tp, w) -> c.seek(tp, w[0]));
            Map<TopicPartition, Long> found = new HashMap<>();
            while (window.entrySet().stream().anyMatch(w -> c.position(w.getKey()) < w.getValue()[1])) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(java.time.Duration.ofMillis(100))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    long[] w = window.get(tp);
                    if (w != null && r.offset() >= w[0] && r.offset() < w[1]) {
                        found.merge(tp, r.offset(), Math::max);
                    }
                }
                if (System.nanoTime() > deadline) {
                    // No topic names: a listing's logs include monitors the caller may not see.
                    throw new io.monitorbackbone.protocol.ServerFault(
                            "reading the last records of " + window.size() + " log(s) did not end in time", null);
                }
            }
            span *= 8;
            Map<TopicPartition, long[]> further = new HashMap<>();
            for (Map.Entry<TopicPartition, long[]> w : window.entrySet()) {
                TopicPartition tp = w.getKey();
                long begin = ranges.get(tp)[0];
                Long offset = found.get(tp);
                if (offset != null) {
                    last.put(tp, Seq.fromOffset(offset));
                } else if (w.getValue()[0] <= begin) {
                    last.put(tp, 0L);
                } else {
                    further.put(tp, new long[] {Math.max(begin, w.getValue()[0] - span), w.getValue()[0]});
                }
            }
            window.clear();
            window.putAll(further);
        }
        return last;
    }

    /**
     * Reads matching observations from {@code fromSeq}. With {@code count}, goes on to the head counting what matches
     * (at most {@link PageScan#LAG_SCAN_LIMIT} more records), which is a subscription's lag when {@code fromSeq} is its
     * cursor.
     */
    public Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count) {
        return read(monitorId, fromSeq, filter, limit, count, null);
    }

    /** @param known the log's bounds, read from the broker by this request a moment ago; null to read them now */
    public Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count, Bounds known) {
        return pool.withConsumer(c -> {
            TopicPartition tp = ReaderPool.partitionOf(monitorId);
            Bounds b = known != null ? known : bounds(c, List.of(tp)).get(monitorId);
            long startSeq = Math.max(fromSeq, b.floor());
            PageScan scan = new PageScan(monitorId, filter, limit, count, b, startSeq);
            boolean remembered = count && filter.passesEverything();
            long readFrom = startSeq;
            if (remembered && limit == 0) {
                PageScan.Counted counted = counts.get(monitorId, startSeq);
                if (counted != null && counted.to() <= b.head()) {
                    readFrom = scan.continueAfter(counted);
                }
            }
            if (readFrom >= 0) {
                scan(c, tp, monitorId, b, scan, readFrom);
            }
            if (remembered) {
                counts.put(monitorId, scan.counted());
            }
            return scan.page();
        });
    }

    private void scan(
            KafkaConsumer<byte[], byte[]> c, TopicPartition tp, String monitorId, Bounds b, PageScan scan, long from) {
        List<Entry> cached = tails.apply(monitorId).tail(from, b.head());
        if (cached != null) {
            for (Entry e : cached) {
                if (!scan.accept(e.seq(), e.draft())) {
                    break;
                }
            }
            return;
        }
        ReaderPool.range(c, tp, Seq.offsetOf(from), b.end(), r -> {
            long seq = Seq.fromOffset(r.offset());
            // Past the page, a filter that passes everything only counts: no record needs decoding.
            return scan.countsOnly()
                    ? scan.count(seq)
                    : scan.accept(seq, ObservationCodec.decode(monitorId, r.headers(), r.value(), r.timestamp()));
        });
    }
}
