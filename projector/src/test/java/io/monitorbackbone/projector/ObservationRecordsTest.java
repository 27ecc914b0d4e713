package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** The fold reads a repartitioned record as the gateway reads the log's own record. */
class ObservationRecordsTest {
    private static final long T = 1_796_000_000_000L;

    @Test
    void aRepartitionedRecordIsReadByTheCodecsOwnReaderAndGivesWhatTheSdkGives() {
        Draft draft = new Draft(
                "demo.note",
                "build-1",
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:ci",
                (com.fasterxml.jackson.databind.node.ObjectNode)
                        Json.read("{\"ok\":true,\"tags\":{}}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        ProducerRecord<String, byte[]> written = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        // What KeyByMonitor forwards: the writer's headers and the seq the offset gave.
        Headers repartitioned = new RecordHeaders(written.headers().toArray());
        repartitioned.add(
                ProjectorTopology.SEQ_HEADER,
                ByteBuffer.allocate(Long.BYTES).putLong(7).array());

        assertThat(ObservationCodec.decodeOwn(repartitioned, written.value(), T))
                .as("the premise: a header the codec does not know sends the record to the SDK's reader")
                .isNull();
        Headers own = ObservationRecords.withoutSeq(repartitioned);
        assertThat(ObservationCodec.decodeOwn(own, written.value(), T)).isEqualTo(draft);
        assertThat(repartitioned.lastHeader(ProjectorTopology.SEQ_HEADER))
                .as("the record's own headers are left as they were")
                .isNotNull();
        assertThat(ObservationRecords.decode("w", repartitioned, written.value(), T))
                .isEqualTo(ObservationCodec.decodeWithSdk(repartitioned, written.value(), T));
    }
}
