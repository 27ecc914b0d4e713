package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The cursor table's merge rule as a compaction sees it: only a key's last record is kept, so a write is done only
 * when the last record read carries the merge of every write. The follower is played by the test: it reads what this
 * gateway wrote, and, where a test says so, another gateway's write that landed right after it.
 */
class CursorWritesTest {
    private static final String SUB = "s-1";
    private static final String T = "2026-12-01T19:00:00.000Z";

    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final Catalog catalog = new Catalog(0);
    private final Deque<Cursor> landingAfterNextWrite = new ArrayDeque<>();
    private int read;
    private final CursorWrites writes = new CursorWrites(catalog, new LogWriter(producer), this::follow);

    /** The follower: reads every record written so far, each followed by what another gateway wrote just after it. */
    private void follow(TopicPartition partition, long upTo) {
        assertThat(partition.topic()).isEqualTo(Topics.CURSORS);
        List<ProducerRecord<String, byte[]>> history = producer.history();
        for (; read < history.size(); read++) {
            catalog.applyRecord(
                    history.get(read).key(), decode(history.get(read).value()));
            for (Cursor other; (other = landingAfterNextWrite.poll()) != null; ) {
                catalog.applyRecord(SUB, other);
            }
        }
    }

    private static Cursor decode(byte[] value) {
        try {
            return Json.MAPPER.readValue(value, Cursor.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Cursor> written() {
        return producer.history().stream().map(r -> decode(r.value())).toList();
    }

    @Test
    void aWriteThatStaysLastIsWrittenOnce() {
        catalog.applyRecord(SUB, new Cursor(0, 5, 4, 4, T));

        writes.put(SUB, new Cursor(0, 10, 9, 4, T));

        assertThat(written()).containsExactly(new Cursor(0, 10, 9, 4, T));
        assertThat(catalog.uncarriedCursor(SUB)).isNull();
    }

    @Test
    void aLowerWriteOfAnotherGatewayLandingAfterOursIsFollowedByTheMerge() {
        catalog.applyRecord(SUB, new Cursor(0, 5, 4, 4, T));
        Cursor ours = new Cursor(0, 10, 9, 4, T);
        // the other gateway read the cursor before our write and acked less, or marked a delivery
        landingAfterNextWrite.add(new Cursor(0, 7, 12, 6, T));

        writes.put(SUB, ours);

        Cursor merge = new Cursor(0, 10, 12, 6, T);
        assertThat(written()).containsExactly(ours, merge);
        assertThat(catalog.cursor(SUB)).isEqualTo(merge);
        assertThat(catalog.uncarriedCursor(SUB))
                .as("the last record, what a compaction keeps, carries both writes")
                .isNull();
    }

    @Test
    void aLowerLastRecordLeftByAWriterThatDiedIsRewrittenByTheSecondLookThatStillFindsIt() {
        catalog.applyRecord(SUB, new Cursor(0, 10, 9, 4, T));
        catalog.applyRecord(SUB, new Cursor(0, 7, 9, 4, T));
        catalog.applyRecord("s-2", new Cursor(0, 3, 2, 2, T));

        assertThat(catalog.uncarriedCursors()).containsExactly(SUB);
        assertThat(writes.repairUncarried())
                .as("the first look gives its writer time to check")
                .isZero();
        assertThat(writes.repairUncarried()).isEqualTo(1);

        assertThat(written()).containsExactly(new Cursor(0, 10, 9, 4, T));
        assertThat(catalog.uncarriedCursors()).isEmpty();
        assertThat(writes.repairUncarried()).isZero();
    }

    @Test
    void aStaleWriteOfTheOldEpochLandingAfterASeekIsFollowedByTheSeekAgain() {
        catalog.applyRecord(SUB, new Cursor(0, 10, 9, 4, T));
        Cursor seeked = new Cursor(1, 3, 9, 4, T);
        landingAfterNextWrite.add(new Cursor(0, 11, 10, 5, T));

        writes.put(SUB, seeked);

        assertThat(written()).containsExactly(seeked, seeked);
        assertThat(catalog.cursor(SUB)).isEqualTo(seeked);
    }
}
