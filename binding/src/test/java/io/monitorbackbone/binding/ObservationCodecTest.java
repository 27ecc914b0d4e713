package io.monitorbackbone.binding;

import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class ObservationCodecTest {

    @Test
    void aDraftRoundTripsThroughBinaryMode() {
        Draft draft = new Draft("demo.note", "build-1", "2026-11-29T18:00:00.000Z", "measured", "probe", "machine_verified",
                "minute", "probe:ci", (com.fasterxml.jackson.databind.node.ObjectNode) Json.read("{\"ok\":true,\"tags\":{}}".getBytes()));

        ProducerRecord<String, byte[]> record = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        Draft back = ObservationCodec.decode(record.headers(), record.value(), 0);

        assertThat(back).isEqualTo(draft);
        assertThat(record.key()).isEqualTo("build-1");
        assertThat(new String(record.headers().lastHeader("ce_source").value(), StandardCharsets.UTF_8)).isEqualTo("monitor:w");
        assertThat(new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8)).isEqualTo("id-1");
        assertThat(new String(record.headers().lastHeader("ce_actor").value(), StandardCharsets.UTF_8)).isEqualTo("probe:ci");
    }
}
