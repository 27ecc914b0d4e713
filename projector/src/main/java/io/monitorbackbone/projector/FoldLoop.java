package io.monitorbackbone.projector;

import io.monitorbackbone.binding.ObservationDecoder;
import io.monitorbackbone.binding.PollPace;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Seq;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread of the projector (docs/adr/0018-projector-consumer.md): a consumer in the projector's group, subscribed to
 * every monitor's log, folds each record into the monitor's aggregate held in memory ({@link Folds}) and sends each
 * changed aggregate to {@code mp.state} once per commit interval. {@code mp.state} is the only checkpoint: no offset is
 * ever committed. A log assigned to this loop is read from the seq its last state reached ({@link StateReader}), so a
 * loop that dies at any moment loses only folds whose state was not acknowledged yet, and whoever takes the log up
 * next folds those records again from the last acknowledged state (the fold is deterministic, and a seq at or below
 * {@code last_seq} changes nothing).
 */
final class FoldLoop implements Runnable {
    private static final Logger LOGGER = LoggerFactory.getLogger(FoldLoop.class);
    /** How long taking up an assigned log may wait for {@code mp.state}. */
    private static final Duration STATE_TIMEOUT = Duration.ofSeconds(60);
    /** How long a clean stop waits to leave the group. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Consumer<byte[], byte[]> consumer;
    private final StateReader states;
    private final Producer<String, byte[]> producer;
    private final PollPace.Hook hook;
    private final Folds folds;
    private final long writeEveryNanos;
    private final Runnable onAssigned;
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();
    /** Decodes every record this loop folds, on its thread. */
    private final ObservationDecoder decoder = new ObservationDecoder();

    private volatile boolean closing;
    /** What {@link #monitors} answers other threads: the owned monitors as of the last rebalance. */
    private volatile List<String> owned = List.of();

    private long writeAt;

    /** Polls of the consumer and records folded, for the meters: the projector's, counted on by a loop replacing this. */
    private final AtomicLong polls;

    private final AtomicLong folded;

    /**
     * @param writeEvery how long a change may wait before it is sent to {@code mp.state} (the commit interval)
     * @param onAssigned called after each assignment the loop has taken up (the first one makes it running)
     */
    FoldLoop(
            Consumer<byte[], byte[]> consumer,
            StateReader states,
            Producer<String, byte[]> producer,
            PollPace.Hook hook,
            int held,
            Duration writeEvery,
            Runnable onAssigned,
            AtomicLong polls,
            AtomicLong folded) {
        this.consumer = consumer;
        this.states = states;
        this.producer = producer;
        this.hook = hook;
        this.folds = new Folds(held);
        this.writeEveryNanos = writeEvery.toNanos();
        this.onAssigned = onAssigned;
        this.polls = polls;
        this.folded = folded;
    }

    /**
     * Runs until {@link #close} (then writes what changed, waits for the broker and leaves the group) or until it fails;
     * its consumers are closed either way.
     */
    @Override
    public void run() {
        try {
            consumer.subscribe(Topics.OBS, new Rebalance());
            while (!closing) {
                try {
                    turn();
                } catch (WakeupException e) {
                    if (!closing) {
                        throw e;
                    }
                }
            }
            // A clean stop: what changed is written and acknowledged before the logs are given up.
            send(folds.takeChanged());
            producer.flush();
            throwIfSendFailed();
            consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(CLOSE_TIMEOUT));
        } finally {
            folds.clear();
            owned = List.of();
            // After a failure: no writes, the group is left to notice (a static member keeps its logs for the session).
            closeQuietly(consumer);
            closeQuietly(states);
            if (hook != null) {
                closeQuietly(hook);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            if (c instanceof Consumer<?, ?> kc) {
                kc.close(CloseOptions.timeout(Duration.ZERO));
            } else {
                c.close();
            }
        } catch (Exception e) {
            LOGGER.debug("closing {}: {}", c, e.toString());
        }
    }

    private void turn() {
        long now = System.nanoTime();
        if (hook != null) {
            hook.beforePoll(consumer, now);
        }
        long wait = folds.changed() == 0
                ? ProjectorConfig.IDLE_POLL_MS
                : Math.max(0, Duration.ofNanos(writeAt - now).toMillis());
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(wait));
        polls.incrementAndGet();
        throwIfSendFailed();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            fold(r);
        }
        if (folds.changed() > 0 && System.nanoTime() - writeAt >= 0) {
            send(folds.takeChanged());
        }
    }

    private void fold(ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null || !Topics.isObs(r.topic())) {
            return; // a tombstone is no observation; its seq is used up all the same
        }
        String monitor = Topics.monitorOf(r.topic());
        if (!folds.owns(monitor)) {
            // Not taken up (cannot happen after an assignment): whoever takes the log up folds it from its last state.
            LOGGER.warn("skipping a record of monitor={} whose log this loop has not taken up", monitor);
            return;
        }
        long seq = Seq.fromOffset(r.offset());
        try {
            boolean first = folds.apply(
                    monitor, seq, decoder.decode(monitor, r.headers(), r.value(), r.timestamp()), r.timestamp());
            if (first) {
                writeAt = System.nanoTime() + writeEveryNanos;
            }
            folded.incrementAndGet();
        } catch (RuntimeException e) {
            LOGGER.warn("skipping unreadable record monitor={} seq={}: {}", monitor, seq, e.toString());
        }
    }

    private void send(List<Folds.Write> writes) {
        for (Folds.Write w : writes) {
            producer.send(
                    new ProducerRecord<>(
                            Topics.STATE,
                            null,
                            w.timestamp() == Long.MIN_VALUE ? null : w.timestamp(),
                            w.monitor(),
                            w.json()),
                    (metadata, failure) -> {
                        if (failure != null) {
                            sendFailure.compareAndSet(null, failure);
                        }
                    });
        }
    }

    /**
     * A state the broker did not take: the loop stops (and is replaced), and the logs it held are taken up again from
     * their last acknowledged states.
     */
    private void throwIfSendFailed() {
        Exception failure = sendFailure.get();
        if (failure != null) {
            throw new IllegalStateException("writing to " + Topics.STATE + " failed: " + failure, failure);
        }
    }

    /** Asks the loop to stop at its next turn: it writes what changed first. */
    void close() {
        closing = true;
        consumer.wakeup();
    }

    Consumer<byte[], byte[]> consumer() {
        return consumer;
    }

    /** The monitors whose logs this loop folds, as of its last rebalance; safe from any thread. */
    Collection<String> monitors() {
        return owned;
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        /**
         * Before another loop may be assigned them: each revoked log's state is written if it changed, and the broker's
         * acknowledgement awaited, so the next owner takes it up from there.
         */
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            for (TopicPartition tp : partitions) {
                Folds.Write w = folds.release(Topics.monitorOf(tp.topic()));
                if (w != null) {
                    send(List.of(w));
                }
            }
            owned = List.copyOf(folds.monitors());
            producer.flush();
            throwIfSendFailed();
        }

        /** Another loop may own them already: what this one folded since its last write is dropped, never written. */
        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            for (TopicPartition tp : partitions) {
                folds.release(Topics.monitorOf(tp.topic()));
            }
            owned = List.copyOf(folds.monitors());
        }

        /** Each assigned log is read from the seq its last state reached (from its start for a monitor with none). */
        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                try {
                    states.catchUp(STATE_TIMEOUT);
                } catch (TimeoutException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
                for (TopicPartition tp : partitions) {
                    String monitor = Topics.monitorOf(tp.topic());
                    StateReader.Stored stored = states.get(monitor);
                    if (stored == null) {
                        folds.own(monitor, Aggregate.EMPTY, null, Long.MIN_VALUE);
                        consumer.seekToBeginning(List.of(tp));
                    } else {
                        Aggregate last = Aggregate.fromJson(stored.json());
                        folds.own(monitor, last, stored.json(), stored.timestamp());
                        // The next record to fold is seq last_seq + 1, at offset last_seq.
                        consumer.seek(tp, Seq.offsetOf(last.lastSeq() + 1));
                    }
                }
            }
            owned = List.copyOf(folds.monitors());
            onAssigned.run();
        }
    }
}
