package io.monitorbackbone.projector;

import io.monitorbackbone.binding.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The latest {@code mp.state} record of every monitor, as a fold loop needs it when a log is assigned to it: the state
 * it takes the monitor up from. Read on the loop's thread only when asked ({@link #catchUp}), up to the ends the
 * partitions have at that moment, so a log revoked from another loop is taken up from the state that loop wrote before
 * it let go (it waits for the broker's acknowledgement before the rebalance goes on).
 */
final class StateReader implements AutoCloseable {
    /** A state record's value and timestamp. */
    record Stored(byte[] json, long timestamp) {}

    private final Consumer<byte[], byte[]> consumer;
    private final Map<String, Stored> latest = new HashMap<>();
    private List<TopicPartition> partitions;

    StateReader(Consumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    /** Reads {@code mp.state} up to the ends its partitions have now. */
    void catchUp(Duration timeout) throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (partitions == null) {
            List<TopicPartition> found = consumer.partitionsFor(Topics.STATE, timeout).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            if (found.isEmpty()) {
                throw new IllegalStateException(Topics.STATE + " does not exist");
            }
            consumer.assign(found);
            consumer.seekToBeginning(found);
            partitions = found;
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, timeout);
        while (behind(ends)) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException(
                        "reading " + Topics.STATE + " up to " + ends + " took longer than " + timeout);
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (r.key() == null) {
                    continue;
                }
                String monitor = new String(r.key(), StandardCharsets.UTF_8);
                if (r.value() == null) {
                    latest.remove(monitor);
                } else {
                    latest.put(monitor, new Stored(r.value(), r.timestamp()));
                }
            }
        }
    }

    private boolean behind(Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return true;
            }
        }
        return false;
    }

    /** The monitor's latest state as of the last {@link #catchUp}, or null. */
    Stored get(String monitor) {
        return latest.get(monitor);
    }

    Consumer<byte[], byte[]> consumer() {
        return consumer;
    }

    @Override
    public void close() {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
    }
}
