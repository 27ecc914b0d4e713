package io.monitorbackbone.binding;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * How long a Kafka Streams thread's poll may wait. Streams commits only between polls, so after a poll that returned
 * records a long poll would hold back what their processing wrote (the leases' decided replies, visible only once the
 * transaction commits; the projector's folds, written when the commit flushes its store): with nothing read, a short
 * poll only spins. So the thread polls for {@code busyMs} from the moment a poll returned records until the commit
 * interval has passed once more (then the commit that makes their output visible has run), and for the configured
 * {@code poll.ms} otherwise. A poll returns as soon as records arrive either way: the long wait costs a record
 * nothing, only the empty loop turns of an idle server. The leases and the projector use it
 * ({@link Supplier} as their client supplier, {@link #idlePollMs} as their {@code poll.ms}).
 */
public final class PollPace {

    private final long busyMs;
    private final long busyForNanos;
    private long busyUntil;
    private boolean busy;

    /** @param commitIntervalMs the app's commit interval; polls are no longer than it (at most 100 ms) while busy */
    PollPace(long commitIntervalMs) {
        this.busyMs = busyPollMs(commitIntervalMs);
        // Long enough for the loop turn after the commit interval ran out, so that commit has happened.
        this.busyForNanos = Duration.ofMillis(commitIntervalMs + busyMs).toNanos();
    }

    /** The poll of a thread that just read something: the commit interval, between 1 and 100 ms. */
    private static long busyPollMs(long commitIntervalMs) {
        return Math.max(1, Math.min(100, commitIntervalMs));
    }

    /** The {@code poll.ms} to configure: {@code idleMs}, and never shorter than a busy poll. */
    public static long idlePollMs(long idleMs, long commitIntervalMs) {
        return Math.max(idleMs, busyPollMs(commitIntervalMs));
    }

    /** The wait for a poll that Streams asked to wait {@code asked}. */
    Duration next(Duration asked, long nowNanos) {
        if (busy && nowNanos - busyUntil >= 0) {
            busy = false;
        }
        return busy && asked.toMillis() > busyMs ? Duration.ofMillis(busyMs) : asked;
    }

    /** After a poll: one that returned records keeps the polls short until the commit interval passed. */
    void polled(boolean records, long nowNanos) {
        if (records) {
            busy = true;
            busyUntil = nowNanos + busyForNanos;
        }
    }

    /**
     * Work a main consumer does on its own stream thread before each poll, closed with the consumer: what the thread
     * needs of Kafka besides its records, without a thread of its own.
     */
    public interface Hook extends AutoCloseable {
        /** Called on the stream thread before each poll of {@code consumer}; must not block for long. */
        void beforePoll(Consumer<byte[], byte[]> consumer, long nowNanos);

        @Override
        void close();
    }

    /** The clients of a Streams app: its main consumer polls at this pace; everything else as Streams makes it. */
    public static final class Supplier implements KafkaClientSupplier {
        private final long commitIntervalMs;
        private final java.util.function.Supplier<Hook> hooks;

        /** @param commitIntervalMs the app's {@code commit.interval.ms} */
        public Supplier(long commitIntervalMs) {
            this(commitIntervalMs, null);
        }

        /**
         * @param commitIntervalMs the app's {@code commit.interval.ms}
         * @param hooks            one {@link Hook} for each main consumer (one per stream thread), or null for none
         */
        public Supplier(long commitIntervalMs, java.util.function.Supplier<Hook> hooks) {
            this.commitIntervalMs = commitIntervalMs;
            this.hooks = hooks;
        }

        @Override
        public Admin getAdmin(Map<String, Object> config) {
            return Admin.create(config);
        }

        @Override
        public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
            return new Paced(config, new PollPace(commitIntervalMs), hooks == null ? null : hooks.get());
        }

        @Override
        public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
            return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }

        @Override
        public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
            return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
    }

    /** A consumer whose poll waits as its {@link PollPace} says, after its {@link Hook}; one stream thread uses it. */
    static final class Paced extends KafkaConsumer<byte[], byte[]> {
        private final PollPace pace;
        private final Hook hook;

        Paced(Map<String, Object> config, PollPace pace, Hook hook) {
            super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            this.pace = pace;
            this.hook = hook;
        }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            if (hook != null) {
                hook.beforePoll(this, System.nanoTime());
            }
            ConsumerRecords<byte[], byte[]> records = super.poll(pace.next(timeout, System.nanoTime()));
            pace.polled(!records.isEmpty(), System.nanoTime());
            return records;
        }

        @Override
        public void close() {
            closeHook();
            super.close();
        }

        @Override
        public void close(Duration timeout) {
            closeHook();
            super.close(timeout);
        }

        @Override
        public void close(org.apache.kafka.clients.consumer.CloseOptions option) {
            closeHook();
            super.close(option);
        }

        private void closeHook() {
            if (hook != null) {
                hook.close();
            }
        }
    }
}
