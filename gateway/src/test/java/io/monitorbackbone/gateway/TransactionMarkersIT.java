package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.TestKafka;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * A transactional writer in a monitor's log (the leases service is one) leaves markers: offsets skip, and aborted
 * records are there but never happened. Head, lag and delivery must count records, not offsets.
 */
class TransactionMarkersIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    @Test
    void headLagAndDeliveryCountRecordsNotOffsets() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("tx"));
        Walk.Reader reader = walk.subscribe(m, "agent:tx");
        walk.ack(reader, 3);
        try (KafkaProducer<String, byte[]> tx = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        TestKafka.bootstrapServers(),
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        "tx-" + UUID.randomUUID()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            tx.initTransactions();
            tx.beginTransaction();
            tx.send(record(m, "committed-1"));
            tx.send(record(m, "committed-2"));
            tx.commitTransaction();
            tx.beginTransaction();
            tx.send(record(m, "aborted"));
            tx.abortTransaction();
        }

        JsonNode pulled = walk.pull(reader, "").json();

        // seq 1 created the monitor, 2 subscribed; the committed pair are 3 and 4, followed by a marker, the aborted
        // record and its marker: the log end offset lies past the head, which is 4.
        assertThat(pulled.get("observations"))
                .extracting(o -> o.path("subject").asText())
                .containsExactly("committed-1", "committed-2");
        assertThat(pulled.get("observations"))
                .extracting(o -> o.get("id").asText())
                .containsExactly("3", "4");
        assertThat(pulled.get("head").asLong()).isEqualTo(4);
        assertThat(pulled.get("lag").asLong()).isEqualTo(2);
        JsonNode acked = walk.ack(reader, pulled.get("next").asLong()).json();
        assertThat(acked.get("lag").asLong()).isZero();
        assertThat(walk.pull(reader, "").json().get("observations")).isEmpty();
        long next = walk.publish(m, "after");
        assertThat(walk.pull(reader, "").json().get("observations"))
                .extracting(o -> o.get("id").asLong())
                .containsExactly(next);
        assertThat(walk.state(m).json().at("/counters/observations").asLong()).isEqualTo(5);
    }

    private static org.apache.kafka.clients.producer.ProducerRecord<String, byte[]> record(
            Walk.Monitor m, String subject) {
        Draft draft = new Draft(
                "com.example.ci.run",
                subject,
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:tx",
                (com.fasterxml.jackson.databind.node.ObjectNode) Json.read(("{\"tags\":{\"monitor\":\"" + m.id()
                                + "\"},\"provenance\":{\"origin\":\"probe\",\"tier\":\"measured\","
                                + "\"verification\":\"machine_verified\",\"actor\":\"probe:tx\"}}")
                        .getBytes()));
        return ObservationCodec.encode(Topics.obs(m.id()), m.id(), null, draft);
    }
}
