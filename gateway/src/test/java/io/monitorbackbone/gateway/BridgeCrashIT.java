package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once across kill -9 (docs/adr/0015-bridge.md): a bridge-only process is killed while it works through
 * thousands of records and started again; the monitor's log then holds one observation per source record, no ce_id
 * twice, no offset of any source partition missing, each key's records in the order they were sent.
 */
class BridgeCrashIT {
    private static final Duration GENEROUS = Duration.ofSeconds(180);
    private static final int BEFORE_KILL = 5000;
    private static final int AFTER_KILL = 1000;
    private static final int KEYS = 20;

    @Test
    void killNineMidStreamNeitherLosesNorDoublesARecord(@TempDir Path gatewayData, @TempDir Path bridgeData)
            throws Exception {
        try (ServerProcess gateway = ServerProcess.builder()
                .env("MP_DATA", gatewayData.toString())
                .env("MP_ROLES", "gateway,projector,leases")
                .start()) {
            Map<String, Object> client = new HashMap<>(gateway.kafkaClientProperties());
            String bootstrap = (String) client.get("bootstrap.servers");
            String topic = BridgeIT.newTopic(bootstrap, client, 3);
            Http http = new Http(gateway.baseUri());
            Walk.Monitor m = new Walk(http)
                    .monitorWith("{\"types\":[\"com.example.tick\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:"
                            + topic + "\",\"settings\":{\"format\":\"json\"}}}");
            try (KafkaProducer<byte[], byte[]> p = BridgeIT.producer(client)) {
                for (int i = 0; i < BEFORE_KILL; i++) {
                    p.send(BridgeIT.record(topic, "key-" + (i % KEYS), "{\"n\":" + i + "}"));
                }
                p.flush();
            }

            try (ServerProcess bridge = ServerProcess.builder()
                            .env(gateway.sharedBrokerEnv())
                            .env("MP_DATA", bridgeData.toString())
                            .env("MP_ROLES", "bridge")
                            .env("MP_INSTANCE_ID", "crash-bridge")
                            .readyWhenLogged("monitor-backbone ready: roles bridge")
                            .start();
                    KafkaConsumer<byte[], byte[]> log = logReader(client, m.id())) {
                List<ConsumerRecord<byte[], byte[]>> rows = new ArrayList<>();
                await("the bridge has begun")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            log.poll(Duration.ofMillis(50)).forEach(rows::add);
                            return ticks(rows) > 0;
                        });
                bridge.kill9();
                int atKill = ticks(rows);

                try (KafkaProducer<byte[], byte[]> p = BridgeIT.producer(client)) {
                    for (int i = BEFORE_KILL; i < BEFORE_KILL + AFTER_KILL; i++) {
                        p.send(BridgeIT.record(topic, "key-" + (i % KEYS), "{\"n\":" + i + "}"));
                    }
                    p.flush();
                }
                bridge.restart();
                await("every source record is bridged")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            log.poll(Duration.ofMillis(200)).forEach(rows::add);
                            return ticks(rows) >= BEFORE_KILL + AFTER_KILL;
                        });
                // Anything a duplicate would add arrives with the rest of the last transaction, which is read by now;
                // one more poll of whatever else is committed.
                log.poll(Duration.ofMillis(500)).forEach(rows::add);

                List<ConsumerRecord<byte[], byte[]>> bridged = rows.stream()
                        .filter(r -> "com.example.tick".equals(header(r, "ce_type")))
                        .toList();
                assertThat(bridged.size())
                        .as("one observation per source record (%d were in the log at the kill)", atKill)
                        .isEqualTo(BEFORE_KILL + AFTER_KILL);
                Set<String> ids = new HashSet<>();
                bridged.forEach(r -> ids.add(header(r, "ce_id")));
                assertThat(ids.size()).as("no ce_id twice").isEqualTo(bridged.size());

                Map<Integer, Long> ends = endOffsets(client, topic);
                Set<String> expected = new HashSet<>();
                ends.forEach((partition, end) -> {
                    for (long o = 0; o < end; o++) {
                        expected.add("kafka:" + topic + "/" + partition + "/" + o);
                    }
                });
                Set<String> missing = new HashSet<>(expected);
                missing.removeAll(ids);
                assertThat(missing).as("no offset of the source missing").isEmpty();

                // The restarted process's meters: what it bridged since it started, and that it bridges one monitor.
                String metrics =
                        new Http(bridge.managementUri()).get("/q/metrics", null).body();
                assertThat(sample(metrics, "mp_bridge_records_total{outcome=\"bridged\""))
                        .isGreaterThanOrEqualTo(AFTER_KILL);
                assertThat(sample(metrics, "mp_bridge_monitors")).isEqualTo(1);

                Map<String, Integer> lastOfKey = new TreeMap<>();
                for (ConsumerRecord<byte[], byte[]> r : bridged) {
                    var data = Json.read(r.value());
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    int n = data.get("n").asInt();
                    Integer before = lastOfKey.put(key, n);
                    assertThat(before == null || before < n)
                            .as("key %s: %d after %s", key, n, before)
                            .isTrue();
                }
            }
        }
    }

    private static double sample(String scrape, String prefix) {
        return scrape.lines()
                .filter(line -> line.startsWith(prefix))
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " in the scrape"));
    }

    private static int ticks(List<ConsumerRecord<byte[], byte[]>> rows) {
        return (int) rows.stream()
                .filter(r -> "com.example.tick".equals(header(r, "ce_type")))
                .count();
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return BridgeIT.header(r, name);
    }

    private static KafkaConsumer<byte[], byte[]> logReader(Map<String, Object> client, String monitorId) {
        Map<String, Object> c = new HashMap<>(client);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        TopicPartition log = new TopicPartition(Topics.obs(monitorId), 0);
        consumer.assign(List.of(log));
        consumer.seekToBeginning(List.of(log));
        return consumer;
    }

    private static Map<Integer, Long> endOffsets(Map<String, Object> client, String topic) {
        Map<String, Object> c = new HashMap<>(client);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            Map<Integer, Long> out = new TreeMap<>();
            consumer.endOffsets(partitions).forEach((tp, end) -> out.put(tp.partition(), end));
            return out;
        }
    }
}
