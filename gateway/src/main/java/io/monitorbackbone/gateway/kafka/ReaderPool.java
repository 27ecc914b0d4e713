package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.ServerFault;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumers that read monitors' logs straight from their partition (assign + seek, no consumer group): a small
 * pool, one consumer borrowed per read and handed back after it. {@link LogReader} and {@link LogFold} read through
 * it; nothing else makes reader consumers.
 */
public final class ReaderPool implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(15);
    /** The client ids of the pool's consumers, for the broker's logs and metrics; nothing depends on them. */
    private static final String CLIENT_PREFIX = "mp-reader-";

    private final Function<String, KafkaConsumer<byte[], byte[]>> factory;
    private final BlockingQueue<KafkaConsumer<byte[], byte[]>> idle;
    private final List<KafkaConsumer<byte[], byte[]>> all = new ArrayList<>();
    private final AtomicInteger created = new AtomicInteger();
    private final int size;

    /** @param factory makes a consumer of the pool (see {@code KafkaRuntime.newReaderConsumer}) from its client id */
    public ReaderPool(Function<String, KafkaConsumer<byte[], byte[]>> factory, int size) {
        this.factory = factory;
        this.size = size;
        this.idle = new ArrayBlockingQueue<>(size);
    }

    /** One monitor's log partition. */
    static TopicPartition partitionOf(String monitorId) {
        return new TopicPartition(Topics.obs(monitorId), 0);
    }

    /** Runs {@code work} with a borrowed consumer; a Kafka failure is a server fault. */
    <T> T withConsumer(Function<KafkaConsumer<byte[], byte[]>, T> work) {
        KafkaConsumer<byte[], byte[]> c = borrow();
        try {
            return work.apply(c);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new ServerFault("reading from Kafka failed: " + e, e);
        } finally {
            idle.add(c);
        }
    }

    /**
     * The last stable offsets of some partitions (the pool's consumers read committed): where a read_committed reader
     * ends up once it has read every committed write; an open transaction, such as a create's, is not waited for.
     *
     * <p>Asked through a consumer, not the admin client: since Kafka 4.0 {@code Admin.listOffsets} caches each
     * partition's leader and, when that broker dies and is fenced, keeps waiting for it until its timeout instead of
     * asking for the new leader (KAFKA-20673), so every read that catches up with a table led by a dead broker would be
     * refused for as long as the broker is down. A consumer asks its metadata again after a disconnection.
     */
    Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return withConsumer(c -> c.endOffsets(partitions, TIMEOUT));
    }

    /**
     * Reads the partition from offset {@code from} up to {@code end}, handing each record to {@code visit} until it
     * answers false. Offsets that hold no record (transaction markers) are skipped.
     */
    static void range(
            KafkaConsumer<byte[], byte[]> c,
            TopicPartition tp,
            long from,
            long end,
            Predicate<ConsumerRecord<byte[], byte[]>> visit) {
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
