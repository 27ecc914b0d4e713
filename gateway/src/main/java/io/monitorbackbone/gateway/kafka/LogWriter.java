package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.ObservationEncoder;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Seq;
import io.monitorbackbone.protocol.ServerFault;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Every write the gateway makes, each done only once Kafka has acknowledged it ({@code acks=all}).
 *
 * <p>The {@code …Async} methods return at once; their future is completed from the producer's callback, on the
 * producer's network thread, with the acknowledged result, or fails with a {@link ServerFault} (the broker refused the
 * write, or did not acknowledge it within 35 s). No thread waits for an acknowledgement: the bound is a timer. The
 * records are encoded and handed to the producer on a writer thread of its own, never on the caller's nor in a
 * producer callback, since the producer's {@code send} may wait (for a topic's metadata, or for buffer space) and
 * that wait on the network thread would be a wait for itself; so a stage that depends on a write may write again, but
 * must not block. The blocking methods wait for the same futures, for the services that still block.
 *
 * <p>The writer has one or more lanes, each a producer (its own connection to each broker) with its own thread
 * (docs/adr/0019-log-producers.md). A broker handles one request of a connection at a time, so one connection is one
 * produce request in progress per broker, however many the client has in flight. With several lanes, a single row
 * takes the last, whose producer has one request in flight (docs/adr/0020-one-request-in-flight.md): single rows of
 * many requests fill a produce request only when they share a connection and wait for the request before them. The
 * appends of several rows at once (a batch publish's) take the other lanes in turn, each batch's rows all on one lane
 * and in their order; every table write takes the first, so two writes of one key are never sent over two
 * connections. One lane takes everything. Nothing relies on the order of two appends that neither waits for: a
 * publish is answered only once its rows are acknowledged, and the rows written after them (reactions) are sent only
 * then.
 */
public final class LogWriter {
    private static final long ACK_TIMEOUT_SECONDS = 35;

    /** One producer, the thread that encodes records and hands them to it, and that thread's encoder. */
    private static final class Lane {
        final Producer<String, byte[]> producer;
        final Executor sending;
        /** Used on the {@link #sending} thread only, where every record of this lane is encoded. */
        final ObservationEncoder encoder = new ObservationEncoder();

        Lane(Producer<String, byte[]> producer, String threadName) {
            this.producer = producer;
            this.sending = Executors.newSingleThreadExecutor(task -> {
                Thread t = new Thread(task, threadName);
                t.setDaemon(true);
                return t;
            });
        }
    }

    private final Lane[] lanes;
    /** The lane the next append of several rows takes, modulo the lanes but the last. */
    private final AtomicInteger turn = new AtomicInteger();
    /**
     * One timer per group of records handed to the producer together (a batch publish's rows, or one record), removed
     * once the last of them is acknowledged: a timer per record on the JDK's shared delay queue was a few percent of a
     * batch publish's CPU (docs/benchmarks.md, 2026-12-07).
     */
    private final ScheduledThreadPoolExecutor timeouts;

    private final long ackTimeoutMillis;

    public LogWriter(Producer<String, byte[]> producer) {
        this(List.of(producer));
    }

    /**
     * @param producers one lane each, in order: the appends of several rows take all but the last in turn, the tables'
     *                  writes the first, single rows the last; one producer takes everything
     */
    public LogWriter(List<? extends Producer<String, byte[]>> producers) {
        this(producers, TimeUnit.SECONDS.toMillis(ACK_TIMEOUT_SECONDS));
    }

    /** @param ackTimeoutMillis how long a write may wait for Kafka's acknowledgement before it fails */
    LogWriter(Producer<String, byte[]> producer, long ackTimeoutMillis) {
        this(List.of(producer), ackTimeoutMillis);
    }

    LogWriter(List<? extends Producer<String, byte[]>> producers, long ackTimeoutMillis) {
        if (producers.isEmpty()) {
            throw new IllegalArgumentException("a log writer needs at least one producer");
        }
        this.ackTimeoutMillis = ackTimeoutMillis;
        this.lanes = new Lane[producers.size()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane(producers.get(i), i == 0 ? "mp-log-writer" : "mp-log-writer-" + i);
        }
        this.timeouts = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, "mp-log-writer-timeouts");
            t.setDaemon(true);
            return t;
        });
        timeouts.setRemoveOnCancelPolicy(true);
    }

    /** The lane of the next append of several rows: each lane but the last in turn, or the only one. */
    private Lane nextLane() {
        int batchLanes = Math.max(1, lanes.length - 1);
        return batchLanes == 1 ? lanes[0] : lanes[Math.floorMod(turn.getAndIncrement(), batchLanes)];
    }

    /** The lane of every table write: the first. */
    private Lane tables() {
        return lanes[0];
    }

    /** The lane of every single row: the last (the first, if alone). */
    private Lane rows() {
        return lanes[lanes.length - 1];
    }

    /** Appends an observation to its monitor's log and returns the seq the broker gave it. */
    public long append(String monitorId, Draft draft) {
        return await(appendAsync(monitorId, draft), Topics.obs(monitorId));
    }

    /** Appends an observation to its monitor's log; the future holds the seq the broker gave it. */
    public CompletableFuture<Long> appendAsync(String monitorId, Draft draft) {
        String topic = Topics.obs(monitorId);
        Lane lane = rows();
        return send(lane, topic, () -> lane.encoder.encode(topic, monitorId, null, draft))
                .thenApply(m -> Seq.fromOffset(m.offset()));
    }

    /** Writes the latest value of a key in a compacted table. */
    public void put(String table, String key, Object value) {
        putRecord(table, key, value);
    }

    /** {@link #put}, answering where the broker appended the record. */
    public RecordMetadata putRecord(String table, String key, Object value) {
        return await(send(tables(), table, () -> new ProducerRecord<>(table, key, Json.bytes(value))), table);
    }

    /** A plain text value, for topics other apps read with a string serde. */
    public void putText(String topic, String key, String value) {
        await(putTextAsync(topic, key, value), topic);
    }

    /** {@link #putText}, done when acknowledged. */
    public CompletableFuture<Void> putTextAsync(String topic, String key, String value) {
        return send(tables(), topic, () -> new ProducerRecord<>(topic, key, value.getBytes(StandardCharsets.UTF_8)))
                .thenApply(m -> null);
    }

    /**
     * Appends observations to one monitor's log in the order given, handed to the producer one after another in one
     * go, so they are pipelined: none waits for the acknowledgement of the one before it. The stage completes once
     * every record is settled: each with the seq the broker gave it, or alone with a {@link ServerFault}.
     */
    public CompletableFuture<Log.Appended> appendAllAsync(String monitorId, List<Draft> drafts) {
        if (drafts.isEmpty()) {
            return CompletableFuture.completedFuture(Log.Appended.NONE);
        }
        String topic = Topics.obs(monitorId);
        Lane lane = drafts.size() == 1 ? rows() : nextLane();
        return submit(lane, topic, drafts.size(), i -> lane.encoder.encode(topic, monitorId, null, drafts.get(i)))
                .thenApply(group -> {
                    long[] seqs = new long[group.written.length];
                    for (int i = 0; i < seqs.length; i++) {
                        seqs[i] = group.failures[i] == null ? Seq.fromOffset(group.written[i].offset()) : 0;
                    }
                    return new Log.Appended(seqs, group.failures);
                });
    }

    /** One record, done when Kafka acknowledged it, or failed with a {@link ServerFault}. */
    private CompletableFuture<RecordMetadata> send(
            Lane lane, String topic, Supplier<ProducerRecord<String, byte[]>> record) {
        return submit(lane, topic, 1, i -> record.get())
                .thenCompose(group -> group.failures[0] == null
                        ? CompletableFuture.completedFuture(group.written[0])
                        : CompletableFuture.failedFuture(group.failures[0]));
    }

    /**
     * Hands {@code size} records to the lane's producer in their order, in one task of the lane's thread ({@code record}
     * makes each there), under one timer; the stage completes once every record is settled.
     */
    private CompletableFuture<Group> submit(
            Lane lane, String topic, int size, IntFunction<ProducerRecord<String, byte[]>> record) {
        Group group = new Group(topic, size);
        group.timer = timeouts.schedule(() -> group.expire(ackTimeoutMillis), ackTimeoutMillis, TimeUnit.MILLISECONDS);
        try {
            lane.sending.execute(() -> {
                for (int i = 0; i < size; i++) {
                    if (group.isSettled(i)) {
                        continue; // timed out while queued: the caller was told nothing was acknowledged, so not sent
                    }
                    int at = i;
                    try {
                        lane.producer.send(record.apply(i), (metadata, failure) -> group.settle(at, metadata, failure));
                    } catch (RuntimeException failure) {
                        group.settle(at, null, failure);
                    }
                }
            });
        } catch (RuntimeException rejected) {
            for (int i = 0; i < size; i++) {
                group.settle(i, null, rejected);
            }
        }
        return group.done;
    }

    /**
     * Records handed to the producer together (a batch publish's rows, or one record), settled one by one, answered
     * once: each acknowledgement only fills its slot and counts down, and the last (or the group's timer) completes the
     * group. A chain of futures per record, completed on the producer's network thread and then joined, was most of
     * that thread's work in a batch publish (docs/benchmarks.md, 2026-12-07, evening); a timer per record on the JDK's
     * shared delay queue was a few percent more.
     */
    private static final class Group {
        private final String topic;
        /** What the broker acknowledged for each record; meaningless where {@link #failures} has one. */
        final RecordMetadata[] written;
        /** Why each record was not written ({@link ServerFault}s), null where it was. */
        final Throwable[] failures;
        /** 1 once a record's outcome is decided: by its acknowledgement, its failure, or the timer, whichever is first. */
        private final AtomicIntegerArray settled;

        private final AtomicInteger open;
        final CompletableFuture<Group> done = new CompletableFuture<>();
        /** Set before the records are handed over, so before any of them can be the last. */
        volatile ScheduledFuture<?> timer;

        Group(String topic, int size) {
            this.topic = topic;
            this.written = new RecordMetadata[size];
            this.failures = new Throwable[size];
            this.settled = new AtomicIntegerArray(size);
            this.open = new AtomicInteger(size);
        }

        boolean isSettled(int i) {
            return settled.get(i) != 0;
        }

        void settle(int i, RecordMetadata metadata, Throwable failure) {
            if (!settled.compareAndSet(i, 0, 1)) {
                return; // already decided: an acknowledgement after the timer changes nothing the caller was told
            }
            if (failure == null) {
                written[i] = metadata;
            } else {
                failures[i] = failure instanceof ServerFault
                        ? failure
                        : new ServerFault("Kafka did not acknowledge the write to " + topic + ": " + failure, failure);
            }
            // The decrement publishes the slot to whoever completes the group (a full fence).
            if (open.decrementAndGet() == 0) {
                timer.cancel(false);
                done.complete(this);
            }
        }

        void expire(long afterMillis) {
            TimeoutException late = new TimeoutException("no acknowledgement within " + afterMillis + " ms");
            for (int i = 0; i < written.length; i++) {
                settle(i, null, late);
            }
        }
    }

    /** Timers still waiting: one per group of records not all settled yet. */
    int timersPending() {
        return timeouts.getQueue().size();
    }

    private static <T> T await(CompletableFuture<T> write, String topic) {
        try {
            return write.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerFault("interrupted while waiting for Kafka to acknowledge a write to " + topic, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof ServerFault fault
                    ? fault
                    : new ServerFault(
                            "Kafka did not acknowledge the write to " + topic + ": " + e.getCause(), e.getCause());
        }
    }
}
