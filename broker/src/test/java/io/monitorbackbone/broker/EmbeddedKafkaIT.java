package io.monitorbackbone.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaIT {

    private static final String TOPIC = "it.records";

    @TempDir
    Path dir;

    @Test
    void keepsTopicsAndRecordsAcrossARestart() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + kafka.port());
            try (Admin admin =
                    Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                        .all()
                        .get();
                assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                                .all()
                                .get())
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(TopicExistsException.class);
            }
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                    Map.of(
                            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            kafka.bootstrapServers(),
                            ProducerConfig.ACKS_CONFIG,
                            "all"),
                    new StringSerializer(),
                    new StringSerializer())) {
                producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get();
            }
            assertThat(readAll(kafka)).containsExactly("k=v");
        }

        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            assertThat(readAll(kafka)).containsExactly("k=v");
        }
    }

    @Test
    void aFailedStartStopsWhatItStartedAndTellsWhy() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (ServerSocket taken = new ServerSocket(0, 0, InetAddress.getByName("127.0.0.1"))) {
            assertThatThrownBy(() -> EmbeddedKafka.start(dir, taken.getLocalPort()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("Address already in use");
        }
        // Yammer's meter tick threads belong to a JVM-wide registry that Kafka never stops.
        await().atMost(Duration.ofSeconds(60))
                .pollInSameThread()
                .untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                        .filteredOn(t -> !before.contains(t) && !t.getName().startsWith("metrics-meter-tick"))
                        .isEmpty());
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            assertThat(kafka.port()).isPositive();
        }
    }

    @Test
    void refusesASecondBrokerOnTheSameDirectory() {
        try (EmbeddedKafka first = EmbeddedKafka.start(dir, 0)) {
            assertThatThrownBy(() -> EmbeddedKafka.start(dir, 0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("another broker is using the log directory " + dir);
        }
    }

    private static List<String> readAll(EmbeddedKafka kafka) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<String> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> seen.add(r.key() + "=" + r.value()));
                return consumer.position(partition)
                        >= consumer.endOffsets(List.of(partition)).get(partition);
            });
            return seen;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    private static boolean canBind(int port) {
        try (ServerSocket s = new ServerSocket(port, 0, InetAddress.getByName("127.0.0.1"))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
