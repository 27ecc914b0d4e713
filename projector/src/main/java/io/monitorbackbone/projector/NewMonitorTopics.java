package io.monitorbackbone.projector;

import io.monitorbackbone.binding.PollPace;
import io.monitorbackbone.binding.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the projector's pattern subscription takes up a new monitor's log without asking the cluster for all of its
 * topics every second (docs/adr/0007-projector.md, "New monitors"). A creation commits the monitor's definition to
 * {@code mp.monitors} after its log exists (docs/adr/0011); this hook reads that table on the stream thread, before
 * each poll of the main consumer, and when a definition names a log the main consumer does not read yet, it asks
 * the consumer to rejoin its group: a pattern-subscribed consumer refreshes the cluster's metadata before it rejoins,
 * finds the new topic and is assigned its partition. It asks again at most once a {@link #RETRY} while the topic is
 * still missing (the broker may learn of a new topic a moment after its creation returned), for at most
 * {@link #GIVE_UP}; the consumer's own metadata refresh ({@code metadata.max.age.ms}) remains as a fallback.
 *
 * <p>Its consumer waits {@link #FETCH_MAX_WAIT_MS} in Kafka (a new definition answers the wait at once) and is polled
 * without waiting, so an idle projector asks the broker for the table every five seconds, where it asked for the
 * whole cluster's metadata every second.
 */
final class NewMonitorTopics implements PollPace.Hook {
    private static final Logger LOGGER = LoggerFactory.getLogger(NewMonitorTopics.class);
    static final int FETCH_MAX_WAIT_MS = 5_000;
    static final Duration RETRY = Duration.ofSeconds(1);
    static final Duration GIVE_UP = Duration.ofSeconds(60);
    /** How long to wait before looking for the table again when it is not there yet. */
    private static final Duration ABSENT = Duration.ofSeconds(5);
    /**
     * The table is polled at most this often: a busy stream thread turns its loop hundreds of times a second, and each
     * poll of the table, even one that finds nothing, asks the network layer for what has arrived.
     */
    static final Duration READ_EVERY = Duration.ofMillis(100);

    private final KafkaConsumer<byte[], byte[]> table;
    /** Log topic to the time it stops being waited for. */
    private final Map<String, Long> expected = new HashMap<>();

    private boolean positioned;
    private boolean closed;
    private long nextTry;
    private long nextRead;
    private long nextRejoin;

    /** @param consumerProperties the table consumer's ({@link ProjectorConfig#newMonitorTopicsProperties}) */
    NewMonitorTopics(Map<String, Object> consumerProperties) {
        this.table = new KafkaConsumer<>(consumerProperties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        // The timers start now: comparisons with 0 would depend on where System.nanoTime() happens to count from.
        long now = System.nanoTime();
        this.nextTry = now;
        this.nextRead = now;
        this.nextRejoin = now;
    }

    @Override
    public void beforePoll(Consumer<byte[], byte[]> consumer, long nowNanos) {
        if (closed) {
            return;
        }
        try {
            if (!positioned) {
                if (nowNanos - nextTry < 0) {
                    return;
                }
                position(nowNanos);
                if (!positioned) {
                    return;
                }
            }
            if (nowNanos - nextRead >= 0) {
                nextRead = nowNanos + READ_EVERY.toNanos();
                for (ConsumerRecord<byte[], byte[]> r : table.poll(Duration.ZERO)) {
                    if (r.key() != null && r.value() != null) {
                        expected.putIfAbsent(
                                Topics.obs(new String(r.key(), StandardCharsets.UTF_8)), nowNanos + GIVE_UP.toNanos());
                    }
                }
            }
            if (!expected.isEmpty() && nowNanos - nextRejoin >= 0) {
                Set<String> reading = consumer.subscription();
                expected.entrySet().removeIf(e -> reading.contains(e.getKey()) || nowNanos - e.getValue() > 0);
                if (!expected.isEmpty()) {
                    nextRejoin = nowNanos + RETRY.toNanos();
                    LOGGER.debug("rejoining to read the new monitor log(s) {}", expected.keySet());
                    consumer.enforceRebalance("a new monitor's log");
                }
            }
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            // The fallback (the main consumer's metadata refresh) still finds new logs; the fold must not stop for
            // this.
            LOGGER.warn(
                    "cannot read {} for new monitors ({}); trying again in {}", Topics.MONITORS, e.toString(), ABSENT);
            positioned = false;
            nextTry = nowNanos + ABSENT.toNanos();
        }
    }

    /** Reads the table from its end: a log created before this is in the metadata the subscription starts from. */
    private void position(long nowNanos) {
        List<TopicPartition> partitions = table.partitionsFor(Topics.MONITORS, Duration.ofSeconds(10)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition()))
                .toList();
        if (partitions.isEmpty()) {
            nextTry = nowNanos + ABSENT.toNanos();
            return;
        }
        table.assign(partitions);
        table.seekToEnd(partitions);
        partitions.forEach(tp -> table.position(tp, Duration.ofSeconds(10)));
        positioned = true;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            table.close(Duration.ZERO);
        }
    }
}
