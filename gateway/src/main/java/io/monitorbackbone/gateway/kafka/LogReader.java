package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.gateway.ServerFault;
import io.monitorbackbone.gateway.service.Log.Bounds;
import io.monitorbackbone.gateway.service.Log.Entry;
import io.monitorbackbone.gateway.service.Log.Page;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Seq;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Reads monitors' logs straight from their partition (assign + seek, no consumer group) with a small pool of consumers,
 * one borrowed per read. Every read takes the log's bounds from the broker; a page that this gateway's in-memory tail
 * ({@link MonitorLog}, kept by the follower, {@code MP_TAIL_CACHE_ENTRIES}) holds up to that head is served from the
 * tail instead of fetched, so a read near the head costs no fetch and still sees exactly what the broker has
 * acknowledged.
 */
public final class LogReader implements AutoCloseable {
    /** How many records one read examines at most for its page before answering with what it has. */
    public static final int SCAN_LIMIT = 20_000;
    /**
     * How many records past the page a lag count examines before it stops and says it is a lower bound. Counting to
     * the head on every pull made draining a backlog quadratic (docs/benchmarks.md).
     */
    public static final int LAG_SCAN_LIMIT = 1_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    /** The client ids of the pool's consumers, for the broker's logs and metrics; nothing depends on them. */
    private static final String CLIENT_PREFIX = "mp-reader-";

    private final Function<String, KafkaConsumer<byte[], byte[]>> factory;
    private final Function<String, MonitorLog> tails;
    private final Heads heads;
    private final BlockingQueue<KafkaConsumer<byte[], byte[]>> idle;
    private final List<KafkaConsumer<byte[], byte[]>> all = new ArrayList<>();
    private final AtomicInteger created = new AtomicInteger();
    private final int size;

    /**
     * @param factory makes a consumer of the pool (see {@code KafkaRuntime.newReaderConsumer}) from its client id
     * @param tails each monitor's in-memory tail, kept by the follower: a read that it covers up to the broker's head is
     *              served from memory instead of fetched
     */
    public LogReader(Function<String, KafkaConsumer<byte[], byte[]>> factory, int size, Function<String, MonitorLog> tails,
                     Heads heads) {
        this.factory = factory;
        this.tails = tails;
        this.heads = heads;
        this.size = size;
        this.idle = new ArrayBlockingQueue<>(size);
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
        return withConsumer(c -> {
            List<TopicPartition> tps = monitorIds.stream().map(id -> new TopicPartition(Topics.obs(id), 0)).toList();
            Map<TopicPartition, Long> begin = c.beginningOffsets(tps, TIMEOUT);
            Map<TopicPartition, Long> end = c.endOffsets(tps, TIMEOUT);
            Map<String, Bounds> out = new HashMap<>();
            for (TopicPartition tp : tps) {
                String id = Topics.monitorOf(tp.topic());
                out.put(id, bounds(id, begin.get(tp), end.get(tp)));
            }
            return out;
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
     * (at most {@link #LAG_SCAN_LIMIT} more records), which is a subscription's lag when {@code fromSeq} is its cursor.
     */
    public Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count) {
        return withConsumer(c -> {
            TopicPartition tp = new TopicPartition(Topics.obs(monitorId), 0);
            List<TopicPartition> tps = List.of(tp);
            Bounds b = bounds(monitorId, c.beginningOffsets(tps, TIMEOUT).get(tp), c.endOffsets(tps, TIMEOUT).get(tp));
            Scan scan = new Scan(monitorId, filter, limit, count, b);
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
            range(c, tp, Seq.offsetOf(startSeq), b.end(), r -> {
                long seq = Seq.fromOffset(r.offset());
                // Past the page, a filter that passes everything only counts: no record needs decoding.
                return scan.countsOnly() ? scan.count(seq)
                        : scan.accept(seq, ObservationCodec.decode(monitorId, r.headers(), r.value(), r.timestamp()));
            });
            return scan.page();
        });
    }

    /**
     * {@code base} (a fold of this log up to its {@code last_seq}) brought up to {@code head} by reading the records
     * after it from Kafka and folding them as the projector does (the record timestamp as the append time); null when
     * more than {@code maxRecords} offsets lie between, so the cost stays bounded whatever the log's length.
     */
    public Aggregate foldFrom(String monitorId, Aggregate base, long head, int maxRecords) {
        return withConsumer(c -> {
            TopicPartition tp = new TopicPartition(Topics.obs(monitorId), 0);
            List<TopicPartition> tps = List.of(tp);
            long begin = c.beginningOffsets(tps, TIMEOUT).getOrDefault(tp, 0L);
            long end = Math.min(c.endOffsets(tps, TIMEOUT).getOrDefault(tp, 0L), Seq.offsetOf(head) + 1);
            long from = Math.max(Seq.offsetOf(base.lastSeq() + 1), begin);
            if (end - from > maxRecords) {
                return null;
            }
            Aggregate[] a = {base};
            range(c, tp, from, end, r -> {
                if (r.value() != null) {
                    // A record that cannot be decoded folds as an undecodable row, as the projector folds it.
                    a[0] = a[0].apply(monitorId, Seq.fromOffset(r.offset()),
                            ObservationCodec.decode(monitorId, r.headers(), r.value(), r.timestamp()), r.timestamp());
                }
                return true;
            });
            return a[0];
        });
    }

    /**
     * Reads the partition from offset {@code from} up to {@code end}, handing each record to {@code visit} until it
     * answers false. Offsets that hold no record (transaction markers) are skipped.
     */
    private static void range(KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long from, long end,
                              java.util.function.Predicate<ConsumerRecord<byte[], byte[]>> visit) {
        if (from >= end) {
            return;
        }
        c.assign(List.of(tp));
        c.seek(tp, from);
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (c.position(tp) < end) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                if (r.offset() >= end || !visit.test(r)) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new ServerFault("reading " + tp + " did not reach its end offset in time", null);
            }
        }
    }

    /** One read's progress: the page it fills, then (when asked) the count of what matches up to the head. */
    private static final class Scan {
        private final String monitorId;
        private final Filter filter;
        private final boolean passesEverything;
        private final int limit;
        private final boolean count;
        private final Bounds bounds;
        private final List<Entry> entries = new ArrayList<>();
        private long next;
        private long matched;
        private long examined;
        private long examinedAfterPage;
        private boolean pageDone;
        private boolean bounded;

        Scan(String monitorId, Filter filter, int limit, boolean count, Bounds bounds) {
            this.monitorId = monitorId;
            this.filter = filter;
            this.passesEverything = filter.passesEverything();
            this.limit = limit;
            this.count = count;
            this.bounds = bounds;
            this.next = bounds.head() + 1;
        }

        /** Whether what is left is counting records that all match, which needs neither a decode nor a match. */
        boolean countsOnly() {
            return pageDone && passesEverything;
        }

        /** {@link #accept} for a record that {@link #countsOnly} says matches. */
        boolean count(long seq) {
            examined++;
            examinedAfterPage++;
            matched++;
            return afterPage(seq);
        }

        /** Takes one record; false once nothing more is needed. */
        boolean accept(long seq, Draft draft) {
            examined++;
            if (pageDone) {
                examinedAfterPage++;
            }
            // Building the served form costs more than any match; a filter that passes everything needs none.
            if (passesEverything || filter.matches(draft.served(monitorId, seq, false))) {
                matched++;
                if (!pageDone) {
                    entries.add(new Entry(seq, draft));
                }
            }
            if (!pageDone && (entries.size() >= limit || examined >= SCAN_LIMIT)) {
                pageDone = true;
                next = seq + 1;
                if (!count) {
                    return false;
                }
            }
            return !pageDone || afterPage(seq);
        }

        private boolean afterPage(long seq) {
            if (examinedAfterPage >= LAG_SCAN_LIMIT) {
                bounded = seq < bounds.head();
                return false;
            }
            return true;
        }

        Page page() {
            return new Page(entries, Math.min(next, bounds.head() + 1), bounds, matched, bounded);
        }
    }

    private <T> T withConsumer(Function<KafkaConsumer<byte[], byte[]>, T> work) {
        KafkaConsumer<byte[], byte[]> c = borrow();
        try {
            return work.apply(c);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new ServerFault("reading from Kafka failed: " + e, e);
        } finally {
            idle.add(c);
        }
    }

    private KafkaConsumer<byte[], byte[]> borrow() {
        KafkaConsumer<byte[], byte[]> c = idle.poll();
        if (c != null) {
            return c;
        }
        if (created.incrementAndGet() <= size) {
            c = factory.apply(CLIENT_PREFIX + created.get());
            synchronized (all) {
                all.add(c);
            }
            return c;
        }
        try {
            c = idle.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (c == null) {
            throw new ServerFault("no log reader became free in time", null);
        }
        return c;
    }

    @Override
    public void close() {
        synchronized (all) {
            all.forEach(c -> c.close(Duration.ofSeconds(2)));
        }
    }
}
