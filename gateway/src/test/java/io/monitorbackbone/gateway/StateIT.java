package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /state} is the projector's fold ({@code mp.state}) rendered at read time: exact after a scripted sequence longer
 * than the gateway's tail (8 entries on the shared server), so no part of it can come from the gateway's memory alone.
 */
class StateIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    private void publish(Walk.Monitor m, String body, int status) {
        Http.Response r = http.post("/mp/v0/monitors/" + m.id() + "/observations", body, m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(status);
    }

    /** The newest fold of the monitor in {@code mp.state}, read straight from the shared test broker's topic. */
    private static Aggregate projected(String monitorId) {
        return projected(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()), monitorId);
    }

    /** The newest fold of the monitor in {@code mp.state} of the broker these client properties reach. */
    static Aggregate projected(Map<String, ?> clientProperties, String monitorId) {
        Map<String, Object> c = new java.util.HashMap<>(clientProperties);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.STATE).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Aggregate latest = Aggregate.EMPTY;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (monitorId.equals(r.key()) && r.value() != null) {
                        latest = Aggregate.fromJson(r.value());
                    }
                }
            }
            return latest;
        }
    }

    @Test
    void aScriptedSequenceLongerThanTheTailGivesTheExpectedState() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("state"));
        for (int i = 0; i < 12; i++) {
            String actor = i % 2 == 0 ? "probe:a" : "probe:b";
            publish(
                    m,
                    "{\"type\":\"com.example.ci.run\",\"subject\":\"s" + (i % 3) + "\",\"actor\":\"" + actor
                            + "\",\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"status\":\"ok\"}}",
                    201);
        }
        publish(
                m,
                "{\"type\":\"com.example.ci.run.contradiction\",\"subject\":\"s1\",\"actor\":\"probe:a\",\"data\":{}}",
                201);
        publish(
                m,
                "{\"type\":\"com.example.ci.run.contradiction\",\"subject\":\"s2\",\"actor\":\"probe:a\",\"data\":{}}",
                201);
        publish(
                m,
                "{\"type\":\"com.example.ci.run.contradiction_resolved\",\"subject\":\"s1\",\"actor\":\"probe:b\",\"data\":{}}",
                201);
        publish(m, "{\"type\":\"com.example.ci.run\",\"tier\":\"gospel\",\"data\":{}}", 400);
        Walk.Reader reader = walk.subscribe(m, "agent:state-reader");
        JsonNode pulled = walk.pull(reader, "?limit=5").json();
        walk.ack(reader, pulled.get("next").asLong());
        long head =
                http.get("/mp/v0/monitors/" + m.id(), null).json().get("head").asLong();

        // seq 1 is the monitor's creation row; 12 observations, 3 contradiction rows, 1 rejected row, 1 subscribed row.
        assertThat(head).isEqualTo(18);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(projected(m.id()).lastSeq())
                        .as("the projector folded the whole log")
                        .isEqualTo(head));
        JsonNode state = walk.state(m).json();

        assertThat(state.get("as_of_seq").asLong()).isEqualTo(head);
        assertThat(state.get("head").asLong()).isEqualTo(head);
        assertThat(state.get("counters"))
                .isEqualTo(Json.read(("{\"observations\":18,\"delivered\":5,\"acted\":0,"
                                + "\"subscriptions_active\":1,\"rejected\":1,\"undecodable\":0}")
                        .getBytes()));
        assertThat(state.get("last"))
                .isEqualTo(Json.read(("{\"seq\":18,\"time\":" + state.at("/last/time")
                                + ",\"type\":\"ai.mentu.monitor.subscribed\"}")
                        .getBytes()));
        assertThat(state.get("contradictions_open").asLong())
                .as("s1 resolved, s2 open")
                .isEqualTo(1);
        assertThat(state.get("live")).isEqualTo(Json.read("{\"value\":true,\"reason\":null}".getBytes()));
        assertThat(state.get("computed_from"))
                .isEqualTo(Json.read(("{\"seq_from\":1,\"seq_to\":" + head + "}").getBytes()));
        assertThat(state.at("/confidence/gaps"))
                .extracting(JsonNode::asText)
                .containsExactly("independence_unknown", "unattested_origin");
        assertThat(state.at("/confidence/value").isNull())
                .as("independence is missing")
                .isTrue();
        assertThat(state.at("/confidence/inputs/missing"))
                .extracting(JsonNode::asText)
                .contains("independence");
        assertThat(state.at("/ages/since_last_pull_s").isNumber()).isTrue();

        // The served counters are the table's, rendered: nothing was folded from the whole log in the gateway.
        Aggregate table = projected(m.id());
        assertThat(state.at("/counters/observations").asLong()).isEqualTo(table.observations());
        assertThat(state.get("contradictions_open").asLong()).isEqualTo(table.contradictionsOpen());
        assertThat(state.at("/confidence/inputs/values"))
                .isEqualTo(stripped(state).at("/confidence/inputs/values"));
    }

    @Test
    void aStateRightAfterAPublishAlreadyCountsIt() {
        Walk.Monitor m = walk.createMonitor(SharedServer.uniqueId("fresh"));
        for (int i = 1; i <= 20; i++) {
            long seq = walk.publish(m, "s-" + i);
            JsonNode state = walk.state(m).json();
            assertThat(state.get("as_of_seq").asLong())
                    .as("state after the publish of seq %d", seq)
                    .isEqualTo(seq);
            assertThat(state.at("/counters/observations").asLong()).isEqualTo(seq);
        }
    }

    @Test
    void withNoProjectorAndNoTailTheStateIsStillExactFromTheLog(@TempDir Path data) {
        try (ServerProcess alone = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .env("MP_ROLES", "gateway,leases")
                .env("MP_TAIL_CACHE_ENTRIES", "0")
                .start()) {
            Walk own = new Walk(new Http(alone.baseUri()));
            Walk.Monitor m = own.createMonitor("unprojected");
            for (int i = 0; i < 30; i++) {
                own.publish(m, "s-" + i);
            }

            JsonNode state = own.state(m).json();

            assertThat(state.get("as_of_seq").asLong())
                    .as("read from the log, since nothing folds it")
                    .isEqualTo(31);
            assertThat(state.at("/counters/observations").asLong()).isEqualTo(31);
            assertThat(state.at("/last/seq").asLong()).isEqualTo(31);
        }
    }

    /** The state without what moves with the clock. */
    static ObjectNode stripped(JsonNode state) {
        ObjectNode copy = state.deepCopy();
        copy.remove("as_of");
        copy.remove("ages");
        return copy;
    }
}
