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
 * records are encoded and handed to the producer on this writer's own thread, never on the caller's nor in a
 * producer callback, since the producer's {@code send} may wait (for a topic's metadata, or for buffer space) and
 * that wait on the network thread would be a wait for itself; so a stage that depends on a write may write again, but
 * must not block. The blocking methods wait for the same futures, for the services that still block.
 */
public final class LogWriter {
    private static final long ACK_TIMEOUT_SECONDS = 35;

    private final Producer<String, byte[]> producer;
    private final Executor sending;
    /** Used on the {@link #sending} thread only, where every record is encoded. */
    private final ObservationEncoder encoder = new ObservationEncoder();
    /**
     * One timer per group of records handed to the producer together (a batch publish's rows, or one record), removed
     * once the last of them is acknowledged: a timer per record on the JDK's shared delay queue was a few percent of a
     * batch publish's CPU (docs/benchmarks.md, 2026-12-07).
     */
    private final ScheduledThreadPoolExecutor timeouts;

    private final long ackTimeoutMillis;

    public LogWriter(Producer<String, byte[]> producer) {
        this(producer, TimeUnit.SECONDS.toMillis(ACK_TIMEOUT_SECONDS));
    }

    /** @param ackTimeoutMillis how long a write may wait for Kafka's acknowledgement before it fails */
    LogWriter(Producer<String, byte[]> producer, long ackTimeoutMillis) {
        this.producer = producer;
        this.ackTimeoutMillis = ackTimeoutMillis;
        this.sending = Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "mp-log-writer");
            t.setDaemon(true);
            return t;
        });
        this.timeouts = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, "mp-log-writer-timeouts");
            t.setDaemon(true);
            return t;
        });
        timeouts.setRemoveOnCancelPolicy(true);
    }

    /** Appends an observation to its monitor's log and returns the seq the broker gave it. */
    public long append(String monitorId, Draft draft) {
        return await(appendAsync(monitorId, draft), Topics.obs(monitorId));
    }

    /** Appends an observation to its monitor's log; the future holds the seq the broker gave it. */
    public CompletableFuture<Long> appendAsync(String monitorId, Draft draft) {
        String topic = Topics.obs(monitorId);
        return send(topic, () -> encoder.encode(topic, monitorId, null, draft))
                .thenApply(m -> Seq.fromOffset(m.offset()));
    }

    /** Writes the latest value of a key in a compacted table. */
    public void put(String table, String key, Object value) {
        await(send(table, () -> new ProducerRecord<>(table, key, Json.bytes(value))), table);
    }

    /** {@link #put}, answering where the broker appended the record. */
    public RecordMetadata putRecord(String table, String key, Object value) {
        return await(send(table, () -> new ProducerRecord<>(table, key, Json.bytes(value))), table);
    }

    /** A plain text value, for topics other apps read with a string serde. */
    public void putText(String topic, String key, String value) {
        await(putTextAsync(topic, key, value), topic);
    }

    /** {@link #putText}, done when acknowledged. */
    public CompletableFuture<Void> putTextAsync(String topic, String key, String value) {
        return send(topic, () -> new ProducerRecord<>(topic, key, value.getBytes(StandardCharsets.UTF_8)))
                .thenApply(m -> null);
    }

    /**
     * Appends observations to one monitor's log in the order given, handed to the producer one after another in one
     * go, so they are pipelined: none waits for the acknowledgement of the one before it. The stage completes once
     * every record is settled: each with the seq the broker gave it, or alone with a {@link ServerFault}.
     *
     * <p>Each record's acknowledgement only fills its slot and counts down; the stage is completed once, by the last
     * (or by the group's timer). A chain of futures per record, completed on the producer's network thread and then
     * joined, was most of that thread's work in a batch publish (docs/benchmarks.md, 2026-12-07, evening).
     */
    public CompletableFuture<Log.Appended> appendAllAsync(String monitorId, List<Draft> drafts) {
        if (drafts.isEmpty()) {
            return CompletableFuture.completedFuture(Log.Appended.NONE);
        }
        String topic = Topics.obs(monitorId);
        Group group = new Group(topic, drafts.size());
        group.timer = timeouts.schedule(() -> group.expire(ackTimeoutMillis), ackTimeoutMillis, TimeUnit.MILLISECONDS);
        try {
            sending.execute(() -> {
                for (int i = 0; i < drafts.size(); i++) {
                    if (group.isSettled(i)) {
                        continue; // timed out while queued: the caller was told nothing was acknowledged, so not sent
                    }
                    int at = i;
                    try {
                        producer.send(
                                encoder.encode(topic, monitorId, null, drafts.get(i)),
                                (metadata, failure) ->
                                        group.settle(at, failure == null ? metadata.offset() : 0, failure));
                    } catch (RuntimeException failure) {
                        group.settle(at, 0, failure);
                    }
                }
            });
        } catch (RuntimeException rejected) {
            for (int i = 0; i < drafts.size(); i++) {
                group.settle(i, 0, rejected);
            }
        }
        return group.done;
    }

    /** Records of one monitor handed to the producer together, settled one by one, answered once. */
    private static final class Group {
        private final String topic;
        private final long[] seqs;
        private final Throwable[] failures;
        /** 1 once a record's outcome is decided: by its acknowledgement, its failure, or the timer, whichever is first. */
        private final AtomicIntegerArray settled;

        private final AtomicInteger open;
        final CompletableFuture<Log.Appended> done = new CompletableFuture<>();
        /** Set before the records are handed over, so before any of them can be the last. */
        volatile ScheduledFuture<?> timer;

        Group(String topic, int size) {
            this.topic = topic;
            this.seqs = new long[size];
            this.failures = new Throwable[size];
            this.settled = new AtomicIntegerArray(size);
            this.open = new AtomicInteger(size);
        }

        boolean isSettled(int i) {
            return settled.get(i) != 0;
        }

        void settle(int i, long offset, Throwable failure) {
            if (!settled.compareAndSet(i, 0, 1)) {
                return; // already decided: an acknowledgement after the timer changes nothing the caller was told
            }
            if (failure == null) {
                seqs[i] = Seq.fromOffset(offset);
            } else {
                failures[i] = failure instanceof ServerFault
                        ? failure
                        : new ServerFault("Kafka did not acknowledge the write to " + topic + ": " + failure, failure);
            }
            // The decrement publishes the slot to whoever completes the group (a full fence).
            if (open.decrementAndGet() == 0) {
                timer.cancel(false);
                done.complete(new Log.Appended(seqs, failures));
            }
        }

        void expire(long afterMillis) {
            TimeoutException late = new TimeoutException("no acknowledgement within " + afterMillis + " ms");
            for (int i = 0; i < seqs.length; i++) {
                settle(i, 0, late);
            }
        }
    }

    private CompletableFuture<RecordMetadata> send(String topic, Supplier<ProducerRecord<String, byte[]>> record) {
        Pending pending = new Pending(topic, record);
        submit(List.of(pending));
        return pending.written;
    }

    /**
     * One record on its way: {@code written} completes from Kafka's acknowledgement, or fails with a ServerFault (the
     * broker refused it, or its group's timer ran out first).
     */
    private static final class Pending {
        final Supplier<ProducerRecord<String, byte[]>> record;
        final CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        final CompletableFuture<RecordMetadata> written = new CompletableFuture<>();
        /** Told once this record is settled, before {@link #written} completes; set before it is handed over. */
        volatile Runnable settled = () -> {};

        Pending(String topic, Supplier<ProducerRecord<String, byte[]>> record) {
            this.record = record;
            acked.whenComplete((metadata, failure) -> {
                settled.run();
                if (failure == null) {
                    written.complete(metadata);
                } else {
                    written.completeExceptionally(
                            failure instanceof ServerFault
                                    ? failure
                                    : new ServerFault(
                                            "Kafka did not acknowledge the write to " + topic + ": " + failure,
                                            failure));
                }
            });
        }
    }

    /** Hands the records to the producer in their order, in one task of the writer's thread. */
    private void submit(List<Pending> records) {
        arm(records);
        try {
            sending.execute(() -> {
                for (Pending p : records) {
                    if (p.acked.isDone()) {
                        continue; // timed out while queued: the caller was told nothing was acknowledged, so not sent
                    }
                    try {
                        producer.send(p.record.get(), (metadata, failure) -> {
                            if (failure == null) {
                                p.acked.complete(metadata);
                            } else {
                                p.acked.completeExceptionally(failure);
                            }
                        });
                    } catch (RuntimeException failure) {
                        p.acked.completeExceptionally(failure);
                    }
                }
            });
        } catch (RuntimeException rejected) {
            records.forEach(p -> p.acked.completeExceptionally(rejected));
        }
    }

    /**
     * One timer for records handed over together: it fails each of them not acknowledged within the timeout, and is
     * removed once the last of them is settled.
     */
    private void arm(List<Pending> records) {
        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger(records.size());
        java.util.concurrent.ScheduledFuture<?> timer = timeouts.schedule(
                () -> {
                    TimeoutException late =
                            new TimeoutException("no acknowledgement within " + ackTimeoutMillis + " ms");
                    records.forEach(p -> p.acked.completeExceptionally(late));
                },
                ackTimeoutMillis,
                TimeUnit.MILLISECONDS);
        Runnable settled = () -> {
            if (open.decrementAndGet() == 0) {
                timer.cancel(false);
            }
        };
        records.forEach(p -> p.settled = settled);
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
