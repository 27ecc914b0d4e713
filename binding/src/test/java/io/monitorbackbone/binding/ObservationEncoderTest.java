package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/** The encoder a writer keeps makes exactly the records {@link ObservationCodec#encode} makes, record after record. */
class ObservationEncoderTest {

    private static Draft draft(String type, String subject, String time, String tier, String actor, String data) {
        return new Draft(
                type,
                subject,
                time,
                tier,
                "probe",
                "machine_verified",
                "minute",
                actor,
                data == null ? null : (ObjectNode) Json.read(data.getBytes(StandardCharsets.UTF_8)));
    }

    /** Values that repeat from one record to the next and values that change, as a writer meets them. */
    private static List<Draft> drafts() {
        List<Draft> out = new ArrayList<>();
        String[] data = {
            "{\"n\":1}",
            "{}",
            "{\"text\":\"h\\u00e9 \\u2603 \\ud83d\\ude00 \\\"q\\\" \\n\",\"tags\":{\"team\":\"core\"}}",
            "{\"big\":12345678901234567890123,\"dec\":1.50,\"exp\":1e400,\"neg\":-0.0,\"t\":true,\"z\":null}",
            "{\"a\":[1,[2,[3,{}]],[]],\"deep\":{\"x\":{\"y\":{\"z\":\"w\"}}}}"
        };
        String[] times = {"2026-11-29T18:00:00.000Z", "2026-11-29T18:00:00.120Z", "2026-11-29T18:00:00.123Z"};
        for (int i = 0; i < 30; i++) {
            out.add(draft(
                    i % 7 == 6 ? "demo.other" : "demo.note",
                    i % 4 == 3 ? null : "s-" + (i / 2),
                    times[(i / 3) % times.length],
                    i % 5 == 4 ? "declared" : "measured",
                    i % 9 == 8 ? "agent:x" : "probe:ci",
                    data[i % data.length]));
        }
        return out;
    }

    @Test
    void recordAfterRecordTheSameBytesAsTheCodecs() {
        ObservationEncoder encoder = new ObservationEncoder();
        int i = 0;
        for (Draft d : drafts()) {
            String monitor = i++ % 10 < 7 ? "w" : "other-monitor";
            ProducerRecord<String, byte[]> mine = encoder.encode("mp.obs." + monitor, monitor, "id-" + i, d);
            ProducerRecord<String, byte[]> codec = ObservationCodec.encode("mp.obs." + monitor, monitor, "id-" + i, d);

            assertThat(mine.topic()).isEqualTo(codec.topic());
            assertThat(mine.key()).isEqualTo(codec.key());
            assertThat(mine.partition()).isEqualTo(codec.partition());
            assertThat(mine.timestamp()).isEqualTo(codec.timestamp());
            assertThat(new String(mine.value(), StandardCharsets.UTF_8))
                    .isEqualTo(new String(codec.value(), StandardCharsets.UTF_8));
            assertThat(mine.value()).isEqualTo(codec.value());
            assertThat(headers(mine)).isEqualTo(headers(codec));
        }
    }

    @Test
    void noDataIsWrittenAsTheCodecWritesIt() {
        Draft none = draft("demo.note", "s", "2026-11-29T18:00:00.000Z", "measured", "probe:ci", null);
        assertThat(new ObservationEncoder().encode("mp.obs.w", "w", "id", none).value())
                .isEqualTo(ObservationCodec.encode("mp.obs.w", "w", "id", none).value());
    }

    @Test
    void freshIdsAreDistinctVersion4Uuids() {
        ObservationEncoder encoder = new ObservationEncoder();
        Draft d = drafts().get(0);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = new String(
                    encoder.encode("mp.obs.w", "w", null, d)
                            .headers()
                            .lastHeader("ce_id")
                            .value(),
                    StandardCharsets.UTF_8);
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(uuid.toString()).isEqualTo(id);
            assertThat(seen.add(id)).as("id %s given once", id).isTrue();
        }
        // Another encoder (another writer) starts from another seed.
        String other = new String(
                new ObservationEncoder()
                        .encode("mp.obs.w", "w", null, d)
                        .headers()
                        .lastHeader("ce_id")
                        .value(),
                StandardCharsets.UTF_8);
        assertThat(seen).doesNotContain(other);
    }

    @Test
    void whatTheCodecRefusesItRefusesAndItGoesOnEncoding() {
        ObservationEncoder encoder = new ObservationEncoder();
        Draft good = drafts().get(0);
        Draft noActor = draft("demo.note", "s", "2026-11-29T18:00:00.000Z", "measured", null, "{}");
        Draft badTime = draft("demo.note", "s", "yesterday", "measured", "probe:ci", "{}");

        assertThatThrownBy(() -> encoder.encode("mp.obs.w", "w", null, noActor))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("actor");
        assertThatThrownBy(() -> ObservationCodec.encode("mp.obs.w", "w", null, noActor))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> encoder.encode("mp.obs.w", "w", null, badTime))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> ObservationCodec.encode("mp.obs.w", "w", null, badTime))
                .isInstanceOf(NullPointerException.class);
        assertThat(encoder.encode("mp.obs.w", "w", "id", good).value())
                .isEqualTo(ObservationCodec.encode("mp.obs.w", "w", "id", good).value());
    }

    /** Each header in order, with its value as text. */
    private static List<String> headers(ProducerRecord<String, byte[]> record) {
        List<String> out = new ArrayList<>();
        for (Header h : record.headers()) {
            out.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
        }
        return out;
    }
}
