package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ServerFault;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * Writes of {@code mp.cursors} that leave the table holding the merge of every write, whatever order two gateways'
 * writes of one subscription land in (ADR 0002).
 *
 * <p>Every reader merges a subscription's records (a higher epoch wins, otherwise each field takes the maximum), but a
 * compaction keeps only a key's last record: if a lower write lands after a higher one, the table would fall back to
 * it. So a write returns only once this gateway's follower has read past it and the key's last record read carries
 * the merge; if it does not (another gateway's lower write landed after), the merge is written again and checked
 * again. The last record of a key is always followed by its own writer's check, so once every writer has answered, the
 * last record carries every acknowledged write. A writer that died between its write and its check is covered by
 * {@link #repairUncarried}, which every gateway runs on a timer.
 */
final class CursorWrites {
    private static final Logger LOGGER = Logger.getLogger(CursorWrites.class);
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(10);

    private final Catalog catalog;
    private final LogWriter writer;
    private final BiConsumer<TopicPartition, Long> awaitRead;
    private final Function<String, Object> locks;
    private Set<String> seenUncarried = Set.of();

    /**
     * @param awaitRead returns once this gateway's follower has read the partition up to (not including) the offset;
     *                  a {@link ServerFault} when it could not in time
     */
    CursorWrites(Catalog catalog, LogWriter writer, BiConsumer<TopicPartition, Long> awaitRead) {
        this.catalog = catalog;
        this.writer = writer;
        this.awaitRead = awaitRead;
        this.locks = catalog::lockFor;
    }

    /** Writes a subscription's cursor; returns once Kafka acknowledged it and the table's last record carries it. */
    void put(String subscriptionId, Cursor cursor) {
        long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
        RecordMetadata written = writer.putRecord(Topics.CURSORS, subscriptionId, cursor);
        while (true) {
            awaitRead.accept(new TopicPartition(written.topic(), written.partition()), written.offset() + 1);
            Cursor uncarried = catalog.uncarriedCursor(subscriptionId);
            if (uncarried == null) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new ServerFault("the cursor table of subscription " + subscriptionId + " kept changing", null);
            }
            written = writer.putRecord(Topics.CURSORS, subscriptionId, uncarried);
        }
    }

    /**
     * Writes the merge again for every subscription whose last record has not carried it since the previous call: a
     * writer that answered has checked its own write, so what is left this long is a writer that died first. Every
     * gateway runs this; two repairing one key at once both write the merge, which is harmless.
     *
     * @return how many subscriptions it repaired
     */
    int repairUncarried() {
        Set<String> now = catalog.uncarriedCursors();
        Set<String> due = new HashSet<>(now);
        due.retainAll(seenUncarried);
        seenUncarried = now;
        int repaired = 0;
        for (String id : due) {
            synchronized (locks.apply(id)) {
                Cursor uncarried = catalog.uncarriedCursor(id);
                if (uncarried != null) {
                    put(id, uncarried);
                    repaired++;
                }
            }
        }
        if (repaired > 0) {
            LOGGER.infof(
                    "rewrote %d cursor(s) whose last record in %s was below their merge", repaired, Topics.CURSORS);
        }
        return repaired;
    }
}
