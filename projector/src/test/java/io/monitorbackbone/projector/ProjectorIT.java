package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Seq;
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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProjectorIT {
    private final String bootstrap = TestKafka.bootstrapServers();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    /** Monitors' logs laid out as the gateway creates them. */
    private static final TopicLayout LOGS = new TopicLayout((short) 1, 1, 1);

    private final List<Projector> instances = new ArrayList<>();

    @AfterEach
    void stop() {
        instances.forEach(p -> p.close(Duration.ofSeconds(10)));
    }

    private ProjectorConfig config(String instance) {
        return ProjectorConfig.fromEnv(env(instance, Map.of()));
    }

    /** The projector's environment for this run, with {@code more} on top. */
    private Map<String, String> env(String instance, Map<String, String> more) {
        Map<String, String> env = new HashMap<>(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                bootstrap,
                "MP_PROJECTOR_INSTANCE_ID",
                instance + "-" + run,
                "MP_PROJECTOR_PARTITIONS",
                "4",
                "MP_PROJECTOR_COMMIT_INTERVAL_MS",
                "100",
                "MP_PROJECTOR_TOPIC_DISCOVERY_MS",
                "500",
                // One broker per test JVM and one consumer group: each run its own group, so reruns start afresh.
                "MP_PROJECTOR_KAFKA_GROUP_ID",
                "mp-projector-it-" + run));
        env.putAll(more);
        return env;
    }

    private Projector start(String instance) throws Exception {
        return start(config(instance));
    }

    private Projector start(ProjectorConfig c) throws Exception {
        Projector projector = Projector.create(c);
        instances.add(projector);
        projector.start();
        return projector;
    }

    private void createLogs(String... monitorIds) throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (String id : monitorIds) {
            topics.add(LOGS.monitorLog(id, null));
        }
        createMissing(topics);
    }

    private void createMissing(List<NewTopic> topics) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            TopicLayout.createMissing(admin, topics, Duration.ofSeconds(60));
        }
    }

    /** A producer that waits for every replica, as the gateway's does. */
    private KafkaProducer<String, byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    private void publish(String monitorId, int count) {
        publishRoundRobin(List.of(monitorId), count);
    }

    /**
     * {@code count} records to each monitor, one monitor after the other per round, so that consecutive records of a
     * fold task belong to different monitors; actors, subjects and the odd contradiction vary, so the aggregates are
     * not trivial.
     */
    private void publishRoundRobin(List<String> monitorIds, int count) {
        Map<String, Monitor> monitors = new HashMap<>();
        monitorIds.forEach(id -> monitors.put(id, MonitorLogs.monitor(id, "{\"owner\":\"agent:owner\"}")));
        try (KafkaProducer<String, byte[]> producer = producer()) {
            for (int i = 0; i < count; i++) {
                for (String id : monitorIds) {
                    String body = i % 50 == 7
                            ? "{\"type\":\"demo.claim.contradiction\",\"subject\":\"s" + (i % 5) + "\"}"
                            : "{\"type\":\"demo.v\",\"subject\":\"s" + i + "\",\"actor\":\"probe:p" + (i % 2) + "\"}";
                    producer.send(MonitorLogs.publish(monitors.get(id), body, MonitorLogs.T0.plusMillis(i)));
                }
            }
            producer.flush();
        }
    }

    /** The monitor's whole log folded record by record, as the gateway's own fold of a lagging state does. */
    private Aggregate foldOfTheLog(String monitorId) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                p,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(Topics.obs(monitorId), 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            Aggregate a = Aggregate.EMPTY;
            while (c.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.value() != null) {
                        a = a.apply(
                                monitorId,
                                Seq.fromOffset(r.offset()),
                                ObservationCodec.decode(monitorId, r.headers(), r.value(), r.timestamp()),
                                r.timestamp());
                    }
                }
            }
            return a;
        }
    }

    /** Until the last state of every monitor is the fold of its log, to the byte. */
    private void awaitStatesAreTheFoldsOfTheLogs(
            KafkaConsumer<String, byte[]> reader, Map<String, Aggregate> states, List<String> monitorIds) {
        Map<String, Aggregate> expected = new HashMap<>();
        monitorIds.forEach(id -> expected.put(id, foldOfTheLog(id)));
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            read(reader, states);
            for (String id : monitorIds) {
                assertThat(states.get(id))
                        .as("the last state of %s", id)
                        .isNotNull()
                        .extracting(Aggregate::lastSeq)
                        .isEqualTo(expected.get(id).lastSeq());
            }
        });
        for (String id : monitorIds) {
            assertThat(new String(states.get(id).toJson(), java.nio.charset.StandardCharsets.UTF_8))
                    .as("the state of %s against the fold of its log", id)
                    .isEqualTo(new String(expected.get(id).toJson(), java.nio.charset.StandardCharsets.UTF_8));
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

        Projector one = start("one");
        Projector two = start("two");
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
            assertThat(one.monitors()).as("logs folded by instance one").isNotEmpty();
            assertThat(two.monitors()).as("logs folded by instance two").isNotEmpty();
            assertThat(one.monitors()).doesNotContainAnyElementsOf(two.monitors());
        });
        assertThat(states.get(a).distinctActors()).isEqualTo(2);
    }

    /**
     * Logs move between instances as they join and leave: each is taken up from the last state its previous owner wrote,
     * and the states end as the folds of the logs.
     */
    @Test
    void logsHandedOverBetweenInstancesAreFoldedOnFromTheStatesWritten() throws Exception {
        List<String> ids = List.of("it-m1-" + run, "it-m2-" + run, "it-m3-" + run, "it-m4-" + run);
        createLogs(ids.toArray(String[]::new));
        ProjectorApp.ensureStateTopic(config("one"));
        publishRoundRobin(ids, 200);
        Projector one = start("one");
        Map<String, Aggregate> states = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            awaitStatesAreTheFoldsOfTheLogs(reader, states, ids);
            Projector two = start("two");
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(two.monitors())
                            .as("logs taken over by the second")
                            .isNotEmpty());
            publishRoundRobin(ids, 100);
            one.close(Duration.ofSeconds(10));
            publishRoundRobin(ids, 100);

            awaitStatesAreTheFoldsOfTheLogs(reader, states, ids);
            assertThat(two.monitors()).containsExactlyInAnyOrderElementsOf(ids);
        }
    }

    /**
     * A monitor's definition in {@code mp.monitors} has the projector read its log at once: here its own refresh of
     * the cluster's metadata comes only every ten minutes, so without {@link NewMonitorTopics} the new log would wait
     * for it (it did every second, asking for every topic of the cluster).
     */
    @Test
    void aMonitorWhoseDefinitionArrivesLaterIsFoldedWithoutWaitingForTheMetadataRefresh() throws Exception {
        String first = "it-first-" + run;
        String later = "it-defined-later-" + run;
        createLogs(first);
        createTable();
        publish(first, 2);
        start(ProjectorConfig.fromEnv(env(
                "one",
                Map.of(
                        "MP_PROJECTOR_TOPIC_DISCOVERY_MS",
                        Long.toString(Duration.ofMinutes(10).toMillis())))));
        Map<String, Aggregate> states = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                read(reader, states);
                assertThat(states.get(first)).extracting(Aggregate::lastSeq).isEqualTo(2L);
            });
            // What the gateway's create does (docs/adr/0011): the log, its rows, then the definition.
            createLogs(later);
            publish(later, 3);
            define(later);

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                read(reader, states);
                assertThat(states.get(later))
                        .as("the state of the monitor defined after the projector started")
                        .extracting(Aggregate::observations)
                        .isEqualTo(3L);
            });
        }
    }

    private void createTable() throws Exception {
        createMissing(List.of(LOGS.table(Topics.MONITORS)));
    }

    /** A definition row for {@code monitorId} in {@code mp.monitors}, as the gateway commits it. */
    private void define(String monitorId) throws Exception {
        try (KafkaProducer<String, byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(
                    Topics.MONITORS,
                    monitorId,
                    io.monitorbackbone.protocol.Json.MAPPER.writeValueAsBytes(
                            MonitorLogs.monitor(monitorId, "{\"owner\":\"agent:owner\"}"))));
            producer.flush();
        }
    }

    /**
     * What the log holds besides observations: a tombstone uses its seq up and is no observation; a record that is not
     * a CloudEvent, or whose data nests deeper than any reader takes, is an undecodable row; a header a producer sent
     * never changes the seq (offset + 1). The states carry no headers.
     */
    @Test
    void tombstonesUndecodableRecordsAndForgedHeadersFoldAsTheLogIsServed() throws Exception {
        String id = "it-odd-" + run;
        createLogs(id);
        ProjectorApp.ensureStateTopic(config("one"));
        Monitor monitor = MonitorLogs.monitor(id, "{\"owner\":\"agent:owner\"}");
        int depth = io.monitorbackbone.protocol.Json.MAX_READ_NESTING + 1;
        try (KafkaProducer<String, byte[]> producer = producer()) {
            producer.send(MonitorLogs.publish(monitor, "{\"type\":\"demo.v\"}", MonitorLogs.T0));
            producer.send(new ProducerRecord<>(Topics.obs(id), "k", null));
            producer.send(new ProducerRecord<>(
                    Topics.obs(id), "k", "not a cloud event".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            ProducerRecord<String, byte[]> forged =
                    MonitorLogs.publish(monitor, "{\"type\":\"demo.v\"}", MonitorLogs.T0);
            forged.headers()
                    .add("mp_seq", java.nio.ByteBuffer.allocate(8).putLong(999).array());
            producer.send(forged);
            ProducerRecord<String, byte[]> deep = MonitorLogs.publish(monitor, "{\"type\":\"demo.v\"}", MonitorLogs.T0);
            producer.send(new ProducerRecord<>(
                    Topics.obs(id),
                    null,
                    deep.key(),
                    ("[".repeat(depth) + "]".repeat(depth)).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    deep.headers()));
            producer.send(MonitorLogs.publish(monitor, "{\"type\":\"demo.v\"}", MonitorLogs.T0));
            producer.flush();
        }

        start("one");
        Map<String, Aggregate> states = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            awaitStatesAreTheFoldsOfTheLogs(reader, states, List.of(id));
        }
        Aggregate a = states.get(id);
        assertThat(a.lastSeq()).isEqualTo(6);
        assertThat(a.observations()).as("every record but the tombstone").isEqualTo(5);
        assertThat(a.undecodable()).isEqualTo(2);
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            List<ConsumerRecord<String, byte[]>> written = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                reader.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (id.equals(r.key())) {
                        written.add(r);
                    }
                });
                assertThat(written).isNotEmpty();
            });
            assertThat(written)
                    .allSatisfy(r -> assertThat(r.headers().toArray()).isEmpty());
        }
    }

    @Test
    void aRecordOfSeveralMebibytesIsFoldedLikeAnyOther() throws Exception {
        String big = "it-big-" + run;
        createLogs(big);
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
                producer.send(MonitorLogs.publish(monitor, body, MonitorLogs.T0))
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

    @Test
    void aggregatesHeldInMemoryAndLetGoBetweenCommitsFoldAsTheLogDoes() throws Exception {
        // One aggregate held decoded, writes a second apart, four monitors' records interleaved: between two writes the
        // loop lets changed aggregates go (as their JSON) many times, and decodes them again.
        List<String> ids = List.of("it-h1-" + run, "it-h2-" + run, "it-h3-" + run, "it-h4-" + run);
        createLogs(ids.toArray(String[]::new));
        ProjectorConfig c = ProjectorConfig.fromEnv(env(
                "held",
                Map.of(
                        "MP_PROJECTOR_HELD",
                        "1",
                        "MP_PROJECTOR_PARTITIONS",
                        "1",
                        "MP_PROJECTOR_COMMIT_INTERVAL_MS",
                        "1000")));
        ProjectorApp.ensureStateTopic(c);
        publishRoundRobin(ids, 300);

        start(c);
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            Map<String, Aggregate> states = new HashMap<>();
            awaitStatesAreTheFoldsOfTheLogs(reader, states, ids);
            assertThat(states.get(ids.get(0)).contradictionsOpen()).isPositive();
        }
    }

    @Test
    void aKill9OfTheProjectorMidStreamLosesNoFold() throws Exception {
        List<String> ids = List.of("it-k1-" + run, "it-k2-" + run, "it-k3-" + run);
        createLogs(ids.toArray(String[]::new));
        ProjectorApp.ensureStateTopic(config("killed"));
        publishRoundRobin(ids, 1000);
        Map<String, Aggregate> states = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = stateReader()) {
            // The same instance id across the kill, as a restarted process has it: it takes its logs up again from
            // the last states it wrote.
            Process first = startProcess("killed");
            try {
                await().atMost(Duration.ofSeconds(180)).untilAsserted(() -> {
                    assertThat(first.isAlive()).as("the projector process runs").isTrue();
                    read(reader, states);
                    assertThat(states).as("a state reached mp.state").isNotEmpty();
                });
            } finally {
                first.destroyForcibly().waitFor(); // SIGKILL: no commit, no close
            }
            long before = states.values().stream().mapToLong(Aggregate::lastSeq).sum();
            publishRoundRobin(ids, 200);

            Process second = startProcess("killed");
            try {
                awaitStatesAreTheFoldsOfTheLogs(reader, states, ids);
            } finally {
                second.destroyForcibly().waitFor();
            }
            // Not asserted (a starved machine may fold it all before the first state is read): what the run shows.
            System.out.printf("projector killed after %d of %d seqs had reached mp.state%n", before, 3L * 1000);
        }
    }

    /** {@link ProjectorApp} as a process of its own, with this run's settings and a short commit interval. */
    private Process startProcess(String instance) throws java.io.IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                ProjectorApp.class.getName()));
        Path log = Path.of("target", "it-state", run, instance + ".log");
        java.nio.file.Files.createDirectories(log.getParent());
        ProcessBuilder b = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        b.environment().putAll(env(instance, Map.of("MP_PROJECTOR_COMMIT_INTERVAL_MS", "100")));
        return b.start();
    }

    private KafkaConsumer<String, byte[]> stateReader() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "state-reader-" + UUID.randomUUID());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(
                p, new StringDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer());
        c.subscribe(List.of(Projector.STATE_TOPIC));
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
