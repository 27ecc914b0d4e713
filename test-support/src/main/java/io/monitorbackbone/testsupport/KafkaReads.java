package io.monitorbackbone.testsupport;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** A plain Kafka consumer, as any local process could run one: what it reads of a topic, or that it is refused. */
public final class KafkaReads {

    private KafkaReads() {}

    /**
     * The keys of every record of {@code topic}, every partition from its start to its end, read with {@code client}
     * (the tables have several partitions: a key is in the one its hash names).
     */
    public static List<String> keys(Map<String, String> client, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = consumer(client, 30_000)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<String> keys = new ArrayList<>();
            await("reading " + topic + " to its end")
                    .atMost(Duration.ofSeconds(60))
                    .pollInSameThread()
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
                        return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    });
            return keys;
        }
    }

    /**
     * A consumer with {@code client} gets nothing of {@code topic}: without credentials the broker closes every
     * connection that does not authenticate first (the client never gets metadata); with wrong ones the client fails
     * with an authentication error.
     */
    public static void assertRefused(Map<String, String> client, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = consumer(client, 5_000)) {
            if (client.containsKey("sasl.jaas.config")) {
                assertThatThrownBy(() -> consumer.partitionsFor(topic)).isInstanceOf(SaslAuthenticationException.class);
            } else {
                assertThatThrownBy(() -> consumer.partitionsFor(topic))
                        .isInstanceOfAny(TimeoutException.class, AuthenticationException.class);
            }
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            assertThatThrownBy(() -> {
                        consumer.seekToBeginning(List.of(partition));
                        consumer.position(partition);
                    })
                    .isInstanceOfAny(TimeoutException.class, AuthenticationException.class);
        }
    }

    /** {@code client} with the user's password replaced: what someone guessing would send. */
    public static Map<String, String> withWrongPassword(Map<String, String> client) {
        Map<String, String> wrong = new HashMap<>(client);
        wrong.computeIfPresent(
                "sasl.jaas.config", (k, v) -> v.replaceAll("password=\"[^\"]*\"", "password=\"guessed\""));
        return wrong;
    }

    private static KafkaConsumer<String, byte[]> consumer(Map<String, String> client, int apiTimeoutMs) {
        Map<String, Object> p = new HashMap<>(client);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, apiTimeoutMs);
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(apiTimeoutMs, 30_000));
        return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    }
}
