package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Json;
import java.nio.charset.StandardCharsets;
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

/**
 * The exactly-once check of the bridge's crash and pause tests (BridgeCrashIT, BridgeSpreadIT, BridgeIT): numbered JSON ticks written to a
 * source by a plain producer, the monitor's log read committed from its start, and the one assertion both make of it
 * (one observation per source record, no ce_id twice, no source offset missing, each key in the order sent).
 */
final class BridgedTicks implements AutoCloseable {
    static final String TYPE = "com.example.tick";
    private static final Duration GENEROUS = Duration.ofSeconds(180);

    private final Map<String, Object> client;
    private final String topic;
    private final int keys;
    private final KafkaConsumer<byte[], byte[]> log;
    private final List<ConsumerRecord<byte[], byte[]>> rows = new ArrayList<>();

    /** Reads {@code monitorId}'s log (read committed, from its start); ticks go to {@code topic} over {@code keys}. */
    BridgedTicks(Map<String, Object> client, String topic, String monitorId, int keys) {
        this.client = client;
        this.topic = topic;
        this.keys = keys;
        Map<String, Object> c = new HashMap<>(client);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        this.log = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        TopicPartition partition = new TopicPartition(Topics.obs(monitorId), 0);
        log.assign(List.of(partition));
        log.seekToBeginning(List.of(partition));
    }

    /** The monitor's definition: a tick type and this source, JSON. */
    static String monitorBody(String topic) {
        return "{\"types\":[\"" + TYPE + "\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:" + topic
                + "\",\"settings\":{\"format\":\"json\"}}}";
    }

    /** Writes ticks {@code from} to {@code to - 1}, tick n keyed {@code key-(n % keys)}, and waits for the acks. */
    void produce(int from, int to) {
        try (KafkaProducer<byte[], byte[]> p = BridgeIT.producer(client)) {
            for (int i = from; i < to; i++) {
                p.send(BridgeIT.record(topic, "key-" + (i % keys), "{\"n\":" + i + "}"));
            }
            p.flush();
        }
    }

    /** Reads the log until at least {@code count} ticks are in it; returns how many are. */
    int awaitTicks(String what, int count) {
        await(what).atMost(GENEROUS).pollInterval(Duration.ofMillis(20)).until(() -> {
            log.poll(Duration.ofMillis(100)).forEach(rows::add);
            return ticks().size() >= count;
        });
        return ticks().size();
    }

    /**
     * Exactly once: after one more poll (a duplicate would come with the rest of its transaction, which is read by
     * now), the log holds {@code expected} ticks, each source offset once, each key's ticks in the order sent.
     */
    void assertExactlyOnce(int expected, int atInterruption) {
        log.poll(Duration.ofMillis(500)).forEach(rows::add);
        List<ConsumerRecord<byte[], byte[]>> bridged = ticks();
        assertThat(bridged.size())
                .as(
                        "one observation per source record (%d were in the log when the bridge was interrupted)",
                        atInterruption)
                .isEqualTo(expected);
        Set<String> ids = new HashSet<>();
        bridged.forEach(r -> ids.add(BridgeIT.header(r, "ce_id")));
        assertThat(ids.size()).as("no ce_id twice").isEqualTo(bridged.size());

        Set<String> missing = new HashSet<>();
        endOffsets().forEach((partition, end) -> {
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
        assertThat(lastOfKey).hasSize(Math.min(keys, expected));
    }

    private List<ConsumerRecord<byte[], byte[]>> ticks() {
        return rows.stream()
                .filter(r -> TYPE.equals(BridgeIT.header(r, "ce_type")))
                .toList();
    }

    private Map<Integer, Long> endOffsets() {
        Map<String, Object> c = new HashMap<>(client);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Map<Integer, Long> out = new TreeMap<>();
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.endOffsets(partitions).forEach((tp, end) -> out.put(tp.partition(), end));
            return out;
        }
    }

    @Override
    public void close() {
        log.close();
    }
}
