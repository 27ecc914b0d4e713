package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Monitors' logs: one per monitor, each record's seq its position (offset + 1). Appends return once Kafka has
 * acknowledged them; reads see exactly what the broker has acknowledged, bounds included. Failures are
 * {@code ServerFault}s. Implemented over Kafka by {@code kafka.KafkaLog}.
 */
public interface Log {

    /** Appends a record to the monitor's log; returns its seq once Kafka has acknowledged it. */
    long append(String monitorId, Draft draft);

    /**
     * {@link #append} without blocking: the stage completes with the seq from the producer's acknowledgement, or fails
     * with a {@code ServerFault} (also when Kafka has not acknowledged within the write's bound).
     */
    CompletableFuture<Long> appendAsync(String monitorId, Draft draft);

    /**
     * Appends records to the monitor's log in this order without waiting between them (pipelined). The stage completes
     * once every record is settled, each with its seq or alone with a {@code ServerFault}; it never fails itself. Rows
     * other writers append at the same time may fall between them.
     */
    default CompletableFuture<Appended> appendAllAsync(String monitorId, List<Draft> drafts) {
        List<CompletableFuture<Long>> each =
                drafts.stream().map(d -> appendAsync(monitorId, d)).toList();
        return CompletableFuture.allOf(
                        each.stream().map(s -> s.handle((v, f) -> null)).toArray(CompletableFuture[]::new))
                .thenApply(all -> {
                    long[] seqs = new long[each.size()];
                    Throwable[] failures = new Throwable[each.size()];
                    for (int i = 0; i < seqs.length; i++) {
                        CompletableFuture<Long> s = each.get(i);
                        Throwable f = s.handle((v, t) -> t).join();
                        if (f instanceof java.util.concurrent.CompletionException c && c.getCause() != null) {
                            f = c.getCause();
                        }
                        failures[i] = f;
                        seqs[i] = f == null ? s.join() : 0;
                    }
                    return new Appended(seqs, failures);
                });
    }

    /** The log's head, retention floor and end, as the broker reports them now. */
    Bounds bounds(String monitorId);

    /** {@link #bounds(String)} of several logs in one round trip; an entry for each id. */
    Map<String, Bounds> bounds(Collection<String> monitorIds);

    /**
     * The first retained record whose timestamp is at or after {@code time}, by the broker's time index of the log
     * (Kafka's offsets-for-times): the record timestamp, which is when the writer handed the record to its producer;
     * null when no retained record is that late.
     */
    Stamped firstAtOrAfter(String monitorId, Instant time);

    /**
     * Matching records from {@code fromSeq}, oldest first, at most {@code limit}. With {@code count}, goes on towards
     * the head counting what matches (a bounded count, {@link Page#countBounded()}), which is a subscription's lag
     * when {@code fromSeq} is its cursor.
     */
    Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count);

    /**
     * A count only from {@code fromSeq} (a lag) up to the head of {@code bounds}, which this request has just read from
     * the broker ({@link #bounds(String)}), so they are not asked again.
     */
    default Page count(String monitorId, long fromSeq, Filter filter, Bounds bounds) {
        return read(monitorId, fromSeq, filter, 0, true);
    }

    /**
     * {@code base} (a fold of the log up to its {@code last_seq}) brought up to {@code head} by folding the records
     * after it as the projector does; null when more than {@code maxRecords} lie between.
     */
    Aggregate foldFrom(String monitorId, Aggregate base, long head, int maxRecords);

    /**
     * @param head  the seq of the monitor's last record
     * @param floor the first seq still retained
     * @param end   the log end offset, where a read stops; past {@code head} when transaction markers follow it
     */
    record Bounds(long head, long floor, long end) {}

    record Entry(long seq, Draft draft) {}

    /**
     * What {@link #appendAllAsync} came to, record by record in the order given: its seq, or the failure that left it
     * unwritten ({@code failures[i]} non-null, and then {@code seqs[i]} is meaningless).
     */
    record Appended(long[] seqs, Throwable[] failures) {
        public static final Appended NONE = new Appended(new long[0], new Throwable[0]);

        public int size() {
            return seqs.length;
        }

        public long seq(int i) {
            return seqs[i];
        }

        public Throwable failure(int i) {
            return failures[i];
        }
    }

    /** A seq and its record's timestamp. */
    record Stamped(long seq, Instant timestamp) {}

    /**
     * @param entries  matching observations from the start, oldest first, at most the limit
     * @param next     the seq to continue from: everything below it was examined
     * @param counted  matching observations from the start up to the head, when asked for; a lower bound if
     *                 {@code countBounded}
     */
    record Page(List<Entry> entries, long next, Bounds bounds, long counted, boolean countBounded) {}
}
