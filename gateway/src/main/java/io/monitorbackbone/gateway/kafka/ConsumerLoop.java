package io.monitorbackbone.gateway.kafka;

import java.time.Duration;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * A daemon thread that owns one consumer (which is not thread-safe) and runs {@link #step()} until closed. Other
 * threads get its attention with {@link #wake()}; a failing step is logged and retried after a second, never swallowed.
 */
public abstract class ConsumerLoop implements AutoCloseable {
    private static final Logger LOGGER = Logger.getLogger(ConsumerLoop.class);

    protected final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private volatile boolean running = true;

    protected ConsumerLoop(KafkaConsumer<byte[], byte[]> consumer, String name) {
        this.consumer = consumer;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    /** The consumer, for its meters only: they may be read from any thread, unlike everything else it has. */
    public KafkaConsumer<byte[], byte[]> consumerForMetrics() {
        return consumer;
    }

    protected void startThread() {
        thread.start();
    }

    /** Runs once on the loop's thread before the first step; false ends the loop. */
    protected abstract boolean init();

    protected abstract void step();

    protected void wake() {
        consumer.wakeup();
    }

    private void run() {
        if (init()) {
            while (running) {
                try {
                    step();
                } catch (WakeupException e) {
                    // wake() or close() wants the loop's attention
                } catch (RuntimeException e) {
                    LOGGER.errorf(e, "%s failed; retrying in 1 s", thread.getName());
                    pause();
                }
            }
        }
        consumer.close(Duration.ofSeconds(5));
    }

    private void pause() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
