package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.testsupport.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProjectorIT {
    private final String bootstrap = TestKafka.bootstrapServers();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    /** Monitors' logs laid out as the gateway creates them. */
    private static final TopicLayout LOGS = new TopicLayout((short) 1, 1, 1);

    private final List<KafkaStreams> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        instances.forEach(s -> s.close(Duration.ofSeconds(10)));
    }

    private ProjectorConfig config(String instance) {
        return ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                bootstrap,
                "MP_PROJECTOR_STATE_DIR",
                Path.of("target", "it-state", run, instance).toString(),
                "MP_PROJECTOR_PARTITIONS",
                "4",
                "MP_PROJECTOR_COMMIT_INTERVAL_MS",
                "100",
                "MP_PROJECTOR_TOPIC_DISCOVERY_MS",
                "500",
                // One broker per test JVM and one consumer group: each run its own group, so reruns start afresh.
                "MP_PROJECTOR_KAFKA_APPLICATION_ID",
                "mp-projector-it-" + run));
    }

    private KafkaStreams start(String instance) {
        ProjectorConfig c = config(instance);
        KafkaStreams streams = new KafkaStreams(ProjectorTopology.build(c.partitions()), c.streamsProperties());
        instances.add(streams);
        streams.start();
        return streams;
    }

    private void createLogs(String... monitorIds) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String id : monitorIds) {
                topics.add(LOGS.monitorLog(id, null));
            }
            TopicLayout.createMissing(admin, topics, Duration.ofSeconds(60));
        }
    }

    private void publish(String monitorId, int count) {
        Monitor monitor = MonitorLogs.monitor(monitorId, "{\"owner\":\"agent:owner\"}");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                TestRecord<String, byte[]> r = MonitorLogs.publish(
                        monitor,
                        "{\"type\":\"demo.v\",\"subject\":\"s" + i + "\",\"actor\":\"probe:p" + (i % 2) + "\"}",
                        MonitorLogs.T0);
                producer.send(new ProducerRecord<>(Topics.obs(monitorId), null, r.key(), r.value(), r.headers()));
            }
            producer.flush();
        }
    }

    @Test
    void twoInstancesShareTheFoldAndAMonitorCreatedLaterIsPickedUp() throws Exception {
        String a = "it-a-" + run;
        String b = "it-b-" + run;
        String later = "it-later-" + run;
        createLogs(a, b);
        ProjectorApp.ensureStateTopic(config("one"));
        publish(a, 5);
        publish(b, 3);

        KafkaStreams one = start("one");
        KafkaStreams two = start("two");
        Map<String, Aggregate> states = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                read(reader, states);
                assertThat(states.get(a)).extracting(Aggregate::lastSeq).isEqualTo(5L);
                assertThat(states.get(b)).extracting(Aggregate::lastSeq).isEqualTo(3L);
            });
            createLogs(later);
            publish(later, 2);

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                read(reader, states);
                assertThat(states.get(later))
                        .extracting(Aggregate::observations)
                        .isEqualTo(2L);
            });
        }

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(foldTasks(one)).as("fold tasks on instance one").isNotEmpty();
            assertThat(foldTasks(two)).as("fold tasks on instance two").isNotEmpty();
        });
        assertThat(states.get(a).distinctActors()).isEqualTo(2);
    }

    @Test
    void aRecordOfSeveralMebibytesIsFoldedLikeAnyOther() throws Exception {
        String big = "it-big-" + run;
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin a = Admin.create(admin)) {
            TopicLayout.createMissing(a, List.of(LOGS.monitorLog(big, null)), Duration.ofSeconds(60));
        }
        ProjectorApp.ensureStateTopic(config("one"));
        Monitor monitor = MonitorLogs.monitor(big, "{\"owner\":\"agent:owner\"}");
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 * 1024 * 1024);
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            for (String body : List.of(
                    "{\"type\":\"demo.v\",\"data\":{\"blob\":\"" + "x".repeat(3 * 1024 * 1024) + "\"}}",
                    "{\"type\":\"demo.v\",\"subject\":\"after\"}")) {
                TestRecord<String, byte[]> r = MonitorLogs.publish(monitor, body, MonitorLogs.T0);
                producer.send(new ProducerRecord<>(Topics.obs(big), null, r.key(), r.value(), r.headers()))
                        .get();
            }
        }

        start("one");
        Map<String, Aggregate> states = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                read(reader, states);
                assertThat(states.get(big)).extracting(Aggregate::observations).isEqualTo(2L);
            });
        }
    }

    /** Tasks of the second sub-topology, the one behind the repartition that holds the store. */
    private static List<TaskMetadata> foldTasks(KafkaStreams streams) {
        List<TaskMetadata> out = new ArrayList<>();
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
            t.activeTasks().stream()
                    .filter(task -> task.taskId().subtopology() == 1)
                    .forEach(out::add);
        }
        return out;
    }

    private KafkaConsumer<String, byte[]> stateReader() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "state-reader-" + run);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(
                p, new StringDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer());
        c.subscribe(List.of(ProjectorTopology.STATE_TOPIC));
        return c;
    }

    private static void read(KafkaConsumer<String, byte[]> reader, Map<String, Aggregate> states) {
        for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(200))) {
            if (r.value() != null) {
                states.put(r.key(), Aggregate.fromJson(r.value()));
            }
        }
    }
}
