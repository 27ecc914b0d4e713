package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class ByMonitorRecordTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFramedRecordUnpacksToItsSeqHeadersInOrderAndValue() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("ce_id", utf8("id-1"))
                .add("ce_type", utf8("demo.note"))
                .add("x-null", null)
                .add("x-empty", new byte[0])
                .add("ce_actor", utf8("probe:é"))
                .add("ce_id", utf8("second id-1, kept in its place"));
        byte[] value = utf8("{\"ok\":true}");

        ByMonitorRecord.Unpacked unpacked = ByMonitorRecord.unpack(ByMonitorRecord.pack(42, headers, value));

        assertThat(unpacked).isNotNull();
        assertThat(unpacked.seq()).isEqualTo(42);
        assertThat(unpacked.value()).isEqualTo(value);
        assertThat(unpacked.headers().toArray()).containsExactly(headers.toArray());
        assertThat(unpacked.headers().lastHeader("x-null").value()).isNull();
    }

    @Test
    void aProducersOwnSeqHeaderIsLeftOutAndAnEmptyValueStaysEmpty() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(
                        ProjectorTopology.SEQ_HEADER,
                        ByteBuffer.allocate(8).putLong(999).array())
                .add("ce_id", utf8("a"));

        ByMonitorRecord.Unpacked unpacked = ByMonitorRecord.unpack(ByMonitorRecord.pack(3, headers, new byte[0]));

        assertThat(unpacked.seq()).isEqualTo(3);
        assertThat(unpacked.headers().lastHeader(ProjectorTopology.SEQ_HEADER)).isNull();
        assertThat(unpacked.headers().toArray()).hasSize(1);
        assertThat(unpacked.value()).isEmpty();
    }

    @Test
    void bytesItDidNotWriteAreNoFramedRecord() {
        byte[] framed = ByMonitorRecord.pack(1, new RecordHeaders().add("ce_id", utf8("a")), utf8("{}"));

        assertThat(ByMonitorRecord.unpack(null)).isNull();
        assertThat(ByMonitorRecord.unpack(utf8("{\"a\":1}")))
                .as("a log record's JSON value")
                .isNull();
        assertThat(ByMonitorRecord.unpack(new byte[] {ByMonitorRecord.MAGIC, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}))
                .as("another version")
                .isNull();
        for (int cut = 0; cut < 2 + 8 + 4 + 4 + 5; cut++) {
            assertThat(ByMonitorRecord.unpack(Arrays.copyOf(framed, cut)))
                    .as("cut after %d bytes", cut)
                    .isNull();
        }
        // Lengths that point past the end or below -1 are refused before anything is allocated for them.
        byte[] huge = framed.clone();
        ByteBuffer.wrap(huge).putInt(2 + 8 + 4, Integer.MAX_VALUE);
        assertThat(ByMonitorRecord.unpack(huge)).isNull();
        byte[] negative = framed.clone();
        ByteBuffer.wrap(negative).putInt(2 + 8 + 4 + 4 + 5, -2);
        assertThat(ByMonitorRecord.unpack(negative)).isNull();
        byte[] manyHeaders = framed.clone();
        ByteBuffer.wrap(manyHeaders).putInt(2 + 8, 1_000_000);
        assertThat(ByMonitorRecord.unpack(manyHeaders)).isNull();
    }
}
