package io.monitorbackbone.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The harness itself: three child JVMs, a leader killed and restarted, and nothing left running after close. */
class KafkaClusterIT {
    private static final Duration GENEROUS = Duration.ofSeconds(90);

    @Test
    void aKilledLeaderIsReplacedAndRejoinsTheIsrAfterItsRestartAndCloseLeavesNothingRunning() throws Exception {
        List<Long> pids = new ArrayList<>();
        TopicPartition partition = new TopicPartition("harness", 0);
        try (KafkaCluster cluster = KafkaCluster.start(3)) {
            cluster.nodeIds().forEach(id -> pids.add(cluster.pid(id)));
            assertThat(cluster.liveBrokers()).containsExactly(1, 2, 3);
            cluster.admin()
                    .createTopics(List.of(new NewTopic("harness", Optional.of(1), Optional.of((short) 3))
                            .configs(Map.of("min.insync.replicas", "2"))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            await().atMost(GENEROUS).ignoreExceptions().until(() -> cluster.leaderOf(partition) > 0);
            assertThat(cluster.replicas(partition)).containsExactly(1, 2, 3);

            try (KafkaProducer<String, String> producer = producer(cluster)) {
                producer.send(new ProducerRecord<>("harness", "before")).get(60, TimeUnit.SECONDS);
                int leader = cluster.leaderOf(partition);

                cluster.kill9(leader);

                assertThat(cluster.isAlive(leader)).isFalse();
                await().atMost(GENEROUS)
                        .ignoreExceptions()
                        .until(() -> cluster.leaderOf(partition) > 0 && cluster.leaderOf(partition) != leader);
                assertThat(cluster.inIsr(partition, leader)).isFalse();
                producer.send(new ProducerRecord<>("harness", "during")).get(60, TimeUnit.SECONDS);

                cluster.restart(leader);

                pids.add(cluster.pid(leader));
                cluster.awaitInIsr(partition, leader, GENEROUS);
                assertThat(cluster.liveBrokers()).containsExactly(1, 2, 3);
                producer.send(new ProducerRecord<>("harness", "after")).get(60, TimeUnit.SECONDS);
            }
            assertThat(readAll(cluster, partition, 3)).containsExactly("before", "during", "after");
        }
        assertThat(pids)
                .hasSize(4)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid)
                                .map(ProcessHandle::isAlive)
                                .orElse(false))
                        .as("node process %d after close", pid)
                        .isFalse());
    }

    private static KafkaProducer<String, String> producer(KafkaCluster cluster) {
        Map<String, Object> p = new HashMap<>(cluster.clientProperties());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static List<String> readAll(KafkaCluster cluster, TopicPartition partition, int count) {
        Map<String, Object> p = new HashMap<>(cluster.clientProperties());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            await().atMost(GENEROUS).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
                return values.size() >= count;
            });
        }
        return values;
    }
}
