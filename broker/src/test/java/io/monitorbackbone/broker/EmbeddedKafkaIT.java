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
import org.apache.kafka.clients.consumer.ConsumerConfig;
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
    void aNewDirectoryGetsFewCoordinatorPartitionsAndAnOldOneKeepsItsFiftyWithTheirGroupsAndTransactions()
            throws Exception {
        Path old = dir.resolve("old");
        Path fresh = dir.resolve("new");
        // A directory made before the setting: the coordinators' topics have Kafka's default 50 partitions.
        Map<String, String> before =
                Map.of("offsets.topic.num.partitions", "50", "transaction.state.log.num.partitions", "50");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(old, 0, null, false, before)) {
            commitGroupAndTransaction(kafka, "old", 7);
            assertThat(partitions(kafka, "__consumer_offsets")).isEqualTo(50);
            assertThat(partitions(kafka, "__transaction_state")).isEqualTo(50);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(old, 0)) {
            assertThat(partitions(kafka, "__consumer_offsets")).isEqualTo(50);
            assertThat(committed(kafka, "old"))
                    .as("the group's offset, found with 50 partitions")
                    .isEqualTo(7);
            // The same transactional id goes on (its coordinator is found in the same partition), and a new group too.
            commitGroupAndTransaction(kafka, "old", 9);
            assertThat(committed(kafka, "old")).isEqualTo(9);
            commitGroupAndTransaction(kafka, "another", 3);
            assertThat(committed(kafka, "another")).isEqualTo(3);
        }

        try (EmbeddedKafka kafka = EmbeddedKafka.start(fresh, 0)) {
            commitGroupAndTransaction(kafka, "new", 5);
            assertThat(partitions(kafka, "__consumer_offsets")).isEqualTo(EmbeddedKafka.COORDINATOR_PARTITIONS);
            assertThat(partitions(kafka, "__transaction_state")).isEqualTo(EmbeddedKafka.COORDINATOR_PARTITIONS);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(fresh, 0)) {
            assertThat(committed(kafka, "new")).isEqualTo(5);
        }
    }

    /** Commits offset {@code offset} of {@link #TOPIC} for group {@code group} in a transaction of id {@code group}. */
    private static void commitGroupAndTransaction(EmbeddedKafka kafka, String group, long offset) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            if (!admin.listTopics().names().get().contains(TOPIC)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                        .all()
                        .get();
            }
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        kafka.bootstrapServers(),
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        "tx-" + group),
                new StringSerializer(),
                new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, group, "v"));
            producer.sendOffsetsToTransaction(
                    Map.of(
                            new TopicPartition(TOPIC, 0),
                            new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset)),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(group));
            producer.commitTransaction();
        }
    }

    private static long committed(EmbeddedKafka kafka, String group) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            return admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get()
                    .get(new TopicPartition(TOPIC, 0))
                    .offset();
        }
    }

    private static int partitions(EmbeddedKafka kafka, String topic) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            return admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get()
                    .get(topic)
                    .partitions()
                    .size();
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

    @Test
    void withAUserBothListenersRequireItAndARestartKeepsIt() throws Exception {
        ClientCredentials user = ClientCredentials.generate();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, user, true)) {
            assertThat(kafka.clientProperties())
                    .containsEntry("security.protocol", "SASL_PLAINTEXT")
                    .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
            write(kafka.clientProperties());
            assertThat(readAll(kafka.clientProperties())).containsExactly("k=v");
            assertRefused(kafka.bootstrapServers(), Map.of());
            assertRefused(kafka.bootstrapServers(), ClientCredentials.generate().securityProperties());
            assertControllerRefusesAnonymousAdmins(kafka, user);
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, user, false)) {
            assertThat(readAll(kafka.clientProperties())).containsExactly("k=v");
            assertRefused(kafka.bootstrapServers(), Map.of());
        }
    }

    @Test
    void aDirectoryFormattedWithoutAUserTakesTheOneItIsStartedWith() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            write(kafka.clientProperties());
        }
        ClientCredentials first = ClientCredentials.generate();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, first, true)) {
            assertThat(readAll(kafka.clientProperties())).containsExactly("k=v");
            assertRefused(kafka.bootstrapServers(), Map.of());
        }
        // Credentials lost: the directory takes new ones, and the old password no longer opens it.
        ClientCredentials second = ClientCredentials.generate();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, second, true)) {
            assertThat(readAll(kafka.clientProperties())).containsExactly("k=v");
            assertRefused(kafka.bootstrapServers(), first.securityProperties());
        }
    }

    @Test
    void credentialsAreWrittenForTheOwnerOnlyAndReadBack() throws Exception {
        Path data = dir.resolve("data");
        ClientCredentials user = ClientCredentials.generate();
        Path file = user.write(data, "127.0.0.1:1");
        assertThat(java.nio.file.Files.getPosixFilePermissions(file))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        assertThat(java.nio.file.Files.getPosixFilePermissions(data))
                .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        assertThat(ClientCredentials.read(data)).isEqualTo(user);
        assertThat(ClientCredentials.read(dir.resolve("none"))).isNull();
        assertThat(user.toString()).doesNotContain(user.password());
        java.util.Properties p = new java.util.Properties();
        try (var in = java.nio.file.Files.newBufferedReader(file)) {
            p.load(in);
        }
        assertThat(p)
                .containsEntry("bootstrap.servers", "127.0.0.1:1")
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsKey("sasl.jaas.config");
    }

    private static void write(Map<String, String> client) throws Exception {
        Map<String, Object> p = new java.util.HashMap<>(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (Admin admin = Admin.create(new java.util.HashMap<>(client))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, "k", "v")).get();
        }
    }

    /** Without the user a client gets nothing: no metadata (no credentials), or an authentication error (wrong ones). */
    private static void assertRefused(String bootstrap, Map<String, String> security) {
        Map<String, Object> p = new java.util.HashMap<>(security);
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            assertThatThrownBy(() -> consumer.partitionsFor(TOPIC))
                    .isInstanceOfAny(
                            org.apache.kafka.common.errors.TimeoutException.class,
                            org.apache.kafka.common.errors.AuthenticationException.class);
            if (!security.isEmpty()) {
                assertThatThrownBy(() -> consumer.partitionsFor(TOPIC))
                        .isInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class);
            }
        }
    }

    /** An admin without the password cannot reach the controller, which would otherwise create users and topics. */
    private static void assertControllerRefusesAnonymousAdmins(EmbeddedKafka kafka, ClientCredentials user) {
        Map<String, Object> p = new java.util.HashMap<>();
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, kafka.controllerServers());
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3_000);
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        // describeCluster is one of the calls an admin client sends to controllers; an open controller would answer
        // it, and incrementalAlterConfigs (the broker's listeners among them) just as well.
        try (Admin admin = Admin.create(p)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get()).isInstanceOf(ExecutionException.class);
        }
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(org.apache.kafka.common.config.SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(
                org.apache.kafka.common.config.SaslConfigs.SASL_JAAS_CONFIG,
                user.jaas("org.apache.kafka.common.security.plain.PlainLoginModule"));
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        try (Admin admin = Admin.create(p)) {
            assertThat(admin.describeCluster().clusterId())
                    .as("the controller with the password")
                    .succeedsWithin(Duration.ofSeconds(60));
        }
    }

    private static List<String> readAll(EmbeddedKafka kafka) {
        return readAll(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }

    private static List<String> readAll(Map<String, String> client) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                new java.util.HashMap<>(client), new StringDeserializer(), new StringDeserializer())) {
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
