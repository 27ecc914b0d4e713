package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Vocabulary;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class ObservationCodecTest {

    @Test
    void aDraftRoundTripsThroughBinaryMode() {
        Draft draft = new Draft(
                "demo.note",
                "build-1",
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:ci",
                (com.fasterxml.jackson.databind.node.ObjectNode) Json.read("{\"ok\":true,\"tags\":{}}".getBytes()));

        ProducerRecord<String, byte[]> record = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        Draft back = ObservationCodec.decode(record.headers(), record.value(), 0);

        assertThat(back).isEqualTo(draft);
        assertThat(record.key()).isEqualTo("build-1");
        assertThat(new String(record.headers().lastHeader("ce_source").value(), StandardCharsets.UTF_8))
                .isEqualTo("monitor:w");
        assertThat(new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8))
                .isEqualTo("id-1");
        assertThat(new String(record.headers().lastHeader("ce_actor").value(), StandardCharsets.UTF_8))
                .isEqualTo("probe:ci");
    }

    @Test
    void aRecordThatCannotBeDecodedComesBackAsAnUndecodableRow() {
        Draft draft = new Draft(
                "demo.note",
                "build-1",
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:ci",
                Json.object());
        ProducerRecord<String, byte[]> record = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        int depth = Json.MAX_READ_NESTING + 5;
        byte[] tooDeep = ("{\"k\":" + "[".repeat(depth) + "]".repeat(depth) + "}").getBytes(StandardCharsets.UTF_8);
        byte[] notJson = "not json".getBytes(StandardCharsets.UTF_8);

        for (byte[] value : java.util.List.of(tooDeep, notJson)) {
            Draft back = ObservationCodec.decode("w", record.headers(), value, 1_764_439_200_000L);
            assertThat(back.type()).isEqualTo(Vocabulary.UNDECODABLE);
            assertThat(back.subject()).isNull();
            assertThat(back.time()).isEqualTo("2025-11-29T18:00:00.000Z");
            assertThat(back.origin()).isEqualTo("system");
            assertThat(back.data().at("/payload/bytes").asInt()).isEqualTo(value.length);
            assertThat(back.data().at("/payload/reason").asText()).isNotBlank();
            assertThat(back.data().at("/tags/monitor").asText()).isEqualTo("w");
            // Every reader builds the same row from the same record.
            assertThat(ObservationCodec.decode(record.headers(), value, 1_764_439_200_000L))
                    .isEqualTo(back);
        }
        org.apache.kafka.common.header.internals.RecordHeaders none =
                new org.apache.kafka.common.header.internals.RecordHeaders();
        assertThat(ObservationCodec.decode("w", none, new byte[] {1, 2, 3}, 0).type())
                .isEqualTo(Vocabulary.UNDECODABLE);
    }
}
