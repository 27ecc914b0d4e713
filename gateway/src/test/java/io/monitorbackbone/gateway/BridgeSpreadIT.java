package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several bridge instances under load (docs/adr/0015-bridge.md): three bridge-only processes on one broker share a
 * monitor's source of six partitions through the monitor's consumer group; one is killed -9 in the middle of the stream
 * and not started again. The two left take its partitions over, and the monitor's log holds exactly one observation per
 * source record: no ce_id twice, no offset missing, each key's records in the order they were sent.
 */
class BridgeSpreadIT {
    private static final Duration GENEROUS = Duration.ofSeconds(180);
    private static final int PARTITIONS = 6;
    private static final int BEFORE_KILL = 3000;
    private static final int AFTER_KILL = 2000;
    private static final int KEYS = 24;
    private static final List<String> INSTANCES = List.of("spread-a", "spread-b", "spread-c");

    @Test
    void threeBridgesShareASourceAndAKillNineOfOneNeitherLosesNorDoublesARecord(@TempDir Path data) throws Exception {
        try (ServerProcess gateway = ServerProcess.builder()
                .env("MP_DATA", Files.createDirectories(data.resolve("gateway")).toString())
                .env("MP_ROLES", "gateway,projector,leases")
                .start()) {
            Map<String, Object> client = new HashMap<>(gateway.kafkaClientProperties());
            String bootstrap = (String) client.get("bootstrap.servers");
            String topic = BridgeIT.newTopic(bootstrap, client, PARTITIONS);
            Walk.Monitor m = new Walk(new Http(gateway.baseUri()))
                    .monitorWith("{\"types\":[\"com.example.tick\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:"
                            + topic + "\",\"settings\":{\"format\":\"json\"}}}");

            // The three start side by side: one after the other would take three JVM starts on a loaded machine.
            List<CompletableFuture<ServerProcess>> starting = new ArrayList<>();
            for (String instance : INSTANCES) {
                Path dir = Files.createDirectories(data.resolve(instance));
                starting.add(CompletableFuture.supplyAsync(() -> ServerProcess.builder()
                        .env(gateway.sharedBrokerEnv())
                        .env("MP_DATA", dir.toString())
                        .env("MP_ROLES", "bridge")
                        .env("MP_INSTANCE_ID", instance)
                        .readyWhenLogged("monitor-backbone ready: roles bridge")
                        .start()));
            }
            List<ServerProcess> bridges = new ArrayList<>();
            try (Admin admin = Admin.create(client);
                    KafkaConsumer<byte[], byte[]> log = logReader(client, m.id())) {
                for (CompletableFuture<ServerProcess> s : starting) {
                    bridges.add(s.join());
                }
                String group = "mp-bridge." + m.id();
                await("each of the three bridges holds partitions of the source")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(500))
                        .until(() -> {
                            ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(group))
                                    .all()
                                    .get()
                                    .get(group);
                            Set<String> holding = new HashSet<>();
                            for (MemberDescription member : g.members()) {
                                if (!member.assignment().topicPartitions().isEmpty()) {
                                    INSTANCES.stream()
                                            .filter(i -> member.clientId().startsWith("mp-bridge-" + i + "-"))
                                            .forEach(holding::add);
                                }
                            }
                            return holding.size() == INSTANCES.size();
                        });

                try (KafkaProducer<byte[], byte[]> p = BridgeIT.producer(client)) {
                    for (int i = 0; i < BEFORE_KILL; i++) {
                        p.send(BridgeIT.record(topic, "key-" + (i % KEYS), "{\"n\":" + i + "}"));
                    }
                    p.flush();
                }
                List<ConsumerRecord<byte[], byte[]>> rows = new ArrayList<>();
                await("the bridges have begun")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            log.poll(Duration.ofMillis(50)).forEach(rows::add);
                            return ticks(rows) > 0;
                        });
                ServerProcess killed = bridges.get(1);
                killed.kill9();
                int atKill = ticks(rows);

                try (KafkaProducer<byte[], byte[]> p = BridgeIT.producer(client)) {
                    for (int i = BEFORE_KILL; i < BEFORE_KILL + AFTER_KILL; i++) {
                        p.send(BridgeIT.record(topic, "key-" + (i % KEYS), "{\"n\":" + i + "}"));
                    }
                    p.flush();
                }
                // The killed member's partitions move to the others after its session times out, and its open
                // transaction is aborted by the broker; until then committed readers of the log wait.
                await("every source record is bridged")
                        .atMost(GENEROUS)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            log.poll(Duration.ofMillis(200)).forEach(rows::add);
                            return ticks(rows) >= BEFORE_KILL + AFTER_KILL;
                        });
                // A duplicate would arrive with the rest of its transaction, which is read by now; one more poll of
                // whatever else is committed.
                log.poll(Duration.ofMillis(500)).forEach(rows::add);

                List<ConsumerRecord<byte[], byte[]>> bridged = rows.stream()
                        .filter(r -> "com.example.tick".equals(BridgeIT.header(r, "ce_type")))
                        .toList();
                assertThat(bridged.size())
                        .as("one observation per source record (%d were in the log at the kill)", atKill)
                        .isEqualTo(BEFORE_KILL + AFTER_KILL);
                Set<String> ids = new HashSet<>();
                bridged.forEach(r -> ids.add(BridgeIT.header(r, "ce_id")));
                assertThat(ids.size()).as("no ce_id twice").isEqualTo(bridged.size());

                Set<String> missing = new HashSet<>();
                endOffsets(client, topic).forEach((partition, end) -> {
                    for (long o = 0; o < end; o++) {
                        missing.add("kafka:" + topic + "/" + partition + "/" + o);
                    }
                });
                missing.removeAll(ids);
                assertThat(missing).as("no offset of the source missing").isEmpty();

                Map<String, Integer> lastOfKey = new TreeMap<>();
                for (ConsumerRecord<byte[], byte[]> r : bridged) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    int n = Json.read(r.value()).get("n").asInt();
                    Integer before = lastOfKey.put(key, n);
                    assertThat(before == null || before < n)
                            .as("key %s: %d after %s", key, n, before)
                            .isTrue();
                }
                assertThat(lastOfKey).hasSize(KEYS);
            } finally {
                for (CompletableFuture<ServerProcess> s : starting) {
                    // Every process that started is stopped, also when another one failed to.
                    ServerProcess p = s.exceptionally(e -> null).join();
                    if (p != null) {
                        p.close();
                    }
                }
            }
        }
    }

    private static int ticks(List<ConsumerRecord<byte[], byte[]>> rows) {
        return (int) rows.stream()
                .filter(r -> "com.example.tick".equals(BridgeIT.header(r, "ce_type")))
                .count();
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
