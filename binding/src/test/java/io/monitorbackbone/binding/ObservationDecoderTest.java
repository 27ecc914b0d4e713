package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Draft;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The decoder a fold keeps reads each record as {@link ObservationCodec#decode} does, whatever came before it. */
class ObservationDecoderTest {

    @Test
    void recordAfterRecordWhatTheCodecReads() {
        ObservationDecoder decoder = new ObservationDecoder();
        String[] times = {"2026-11-29T18:00:00.000Z", "2026-11-29T18:00:00.000Z", "2026-11-29T18:00:01.500Z"};
        long timestamp = 1_764_439_200_000L;
        for (int i = 0; i < 40; i++) {
            Draft d = ObservationCodecTest.sample(
                    i % 3 == 0 ? null : "s-" + (i % 5), times[(i / 4) % times.length], "{\"n\":" + (i % 2) + "}");
            ProducerRecord<String, byte[]> r = ObservationCodec.encode("mp.obs.w", "w", null, d);
            RecordHeaders headers = new RecordHeaders(r.headers().toArray());
            if (i % 6 == 5) {
                headers.remove(
                        "ce_time"); // then the record's timestamp is the time, which changes while the rest stays
            }
            if (i % 11 == 10) {
                headers.remove("ce_time");
                headers.add("ce_time", "not a time".getBytes(StandardCharsets.UTF_8));
            }
            Draft expected = ObservationCodec.decode("w", headers, r.value(), timestamp + i);
            assertThat(decoder.decode("w", headers, r.value(), timestamp + i))
                    .as("record %d", i)
                    .isEqualTo(expected);
            if (i % 6 == 5) {
                assertThat(expected.time()).isNotEqualTo(d.time());
            }
        }
    }
}
