package io.monitorbackbone.projector;

import io.monitorbackbone.binding.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every monitor's log folded into its {@link io.monitorbackbone.protocol.Aggregate}, published to the compacted
 * {@code mp.state} (docs/adr/0018-projector-consumer.md): {@link ProjectorConfig#threads} fold loops, each a consumer
 * in the projector's group, so the monitors' logs are spread over the loops of every projector process, and one
 * producer for their states.
 */
public final class Projector implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(Projector.class);

    /** The logs it folds. */
    public static final Pattern LOGS = Topics.OBS;
    /** Where it writes each monitor's aggregate; its only checkpoint. */
    public static final String STATE_TOPIC = Topics.STATE;

    /** Aggregates a fold loop keeps decoded by default: the busy monitors of its logs. */
    public static final int DEFAULT_HELD = 64;

    /** Where the projector is. */
    public enum State {
        CREATED,
        /** Joining its group. */
        STARTING,
        /** Every loop has taken up its first assignment. */
        RUNNING,
        /** A loop failed and was not replaced. */
        FAILED,
        STOPPED
    }

    /** Told of a loop's failure: whether to replace the loop (a new one takes its logs up from their last states). */
    public interface FailureHandler {
        boolean replace(Throwable failure);
    }

    private final ProjectorConfig config;
    private final Producer<String, byte[]> producer;
    private final List<Slot> slots = new ArrayList<>();
    private final AtomicReference<State> state = new AtomicReference<>(State.CREATED);
    private volatile FailureHandler onFailure = e -> false;
    private volatile Runnable onRunning = () -> {};
    private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong folded = new java.util.concurrent.atomic.AtomicLong();

    /** One thread's loop, replaced when it fails and the handler says so. */
    private final class Slot {
        final int number;
        final AtomicInteger generation = new AtomicInteger();
        volatile FoldLoop loop;
        volatile Thread thread;
        volatile boolean assigned;

        Slot(int number) {
            this.number = number;
        }
    }

    private Projector(ProjectorConfig config, Producer<String, byte[]> producer) {
        this.config = config;
        this.producer = producer;
        for (int i = 1; i <= config.threads(); i++) {
            slots.add(new Slot(i));
        }
    }

    /** The projector, not started; {@code mp.state} exists when this returns. */
    public static Projector create(ProjectorConfig config)
            throws InterruptedException, java.util.concurrent.TimeoutException {
        ProjectorApp.ensureStateTopic(config);
        return new Projector(
                config,
                new KafkaProducer<>(config.producerProperties(), new StringSerializer(), new ByteArraySerializer()));
    }

    /** Called for a loop that failed, on its thread; by default a failed loop is not replaced. */
    public void onFailure(FailureHandler handler) {
        this.onFailure = handler;
    }

    /** Called once, when every loop has taken up its first assignment. */
    public void onRunning(Runnable listener) {
        this.onRunning = listener;
    }

    public synchronized void start() {
        if (!state.compareAndSet(State.CREATED, State.STARTING)) {
            throw new IllegalStateException("the projector is " + state.get());
        }
        slots.forEach(this::run);
    }

    public State state() {
        return state.get();
    }

    private void run(Slot slot) {
        int generation = slot.generation.incrementAndGet();
        FoldLoop loop = new FoldLoop(
                new KafkaConsumer<>(
                        config.consumerProperties(slot.number),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer()),
                new StateReader(new KafkaConsumer<>(
                        config.stateReaderProperties(slot.number),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())),
                producer,
                new NewMonitorTopics(config.newMonitorTopicsProperties(slot.number)),
                config.held(),
                Duration.ofMillis(config.commitIntervalMs()),
                () -> assigned(slot),
                polls,
                folded);
        slot.loop = loop;
        Thread t = new Thread(() -> loop(slot, loop, generation), threadName(slot.number, generation));
        t.setDaemon(true);
        slot.thread = t;
        t.start();
    }

    private static String threadName(int number, int generation) {
        return ProjectorConfig.APPLICATION_ID + "-" + number + (generation > 1 ? "-" + generation : "");
    }

    private void loop(Slot slot, FoldLoop loop, int generation) {
        try {
            loop.run();
        } catch (Throwable e) {
            State now = state.get();
            if (now == State.STOPPED) {
                return;
            }
            boolean replace;
            try {
                replace = onFailure.replace(e);
            } catch (RuntimeException handlerFailed) {
                replace = false;
            }
            synchronized (this) {
                if (state.get() == State.STOPPED || slot.generation.get() != generation) {
                    return;
                }
                if (replace) {
                    LOGGER.warn("projector loop {} failed; replacing it: {}", slot.number, e.toString());
                    run(slot);
                } else {
                    LOGGER.error("projector loop {} failed", slot.number, e);
                    state.set(State.FAILED);
                }
            }
        }
    }

    private void assigned(Slot slot) {
        slot.assigned = true;
        if (slots.stream().allMatch(s -> s.assigned) && state.compareAndSet(State.STARTING, State.RUNNING)) {
            onRunning.run();
        }
    }

    /** The monitors whose logs this process folds now. */
    public Set<String> monitors() {
        Set<String> out = new TreeSet<>();
        for (Slot s : slots) {
            FoldLoop loop = s.loop;
            if (loop != null) {
                out.addAll(loop.monitors());
            }
        }
        return out;
    }

    /** Polls of the loops' consumers since the start: an idle loop polls once a second. */
    public long polls() {
        return polls.get();
    }

    /** Records of the logs folded since the start (again after a failure, when a log is folded from its last state). */
    public long folded() {
        return folded.get();
    }

    /** The producer of the states, for the meters. */
    public Producer<String, byte[]> producerForMetrics() {
        return producer;
    }

    /** The loops' consumers of the logs as they are now, for the meters. */
    public List<Consumer<byte[], byte[]>> consumersForMetrics() {
        List<Consumer<byte[], byte[]>> out = new ArrayList<>();
        for (Slot s : slots) {
            FoldLoop loop = s.loop;
            if (loop != null) {
                out.add(loop.consumer());
            }
        }
        return out;
    }

    /**
     * Stops every loop: each writes what it changed, waits for the broker and leaves the group, within {@code timeout};
     * then the producer is closed.
     */
    public void close(Duration timeout) {
        List<Thread> threads = new ArrayList<>();
        synchronized (this) {
            if (state.getAndSet(State.STOPPED) == State.STOPPED) {
                return;
            }
            for (Slot s : slots) {
                if (s.loop != null) {
                    s.loop.close();
                    threads.add(s.thread);
                }
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        producer.close(Duration.ofMillis(Math.max(0, (deadline - System.nanoTime()) / 1_000_000)));
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
