package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.KafkaReads;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The server as {@code ./mp serve} runs it, with its own embedded broker: the broker requires the SCRAM user the server
 * made at first start, so a plain Kafka consumer on the same machine no longer reads {@code mp.monitors} (every
 * monitor's token hashes), while one configured from {@code mp kafka-config} does.
 */
class KafkaConfigIT {

    @Test
    void onlyAClientConfiguredFromKafkaConfigReadsTheEmbeddedBrokerAndARestartKeepsTheCredentials() throws Exception {
        Path data = buildDir().resolve("kafka-config-" + System.nanoTime());
        try (ServerProcess server = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .env("MP_ADMIN_TOKEN", ADMIN_TOKEN)
                .start()) {
            Fixture.Monitor m = new Fixture(new Http(server.baseUri())).monitor("secured");

            CliProcess.Finished printed = kafkaConfig(data);
            assertThat(printed.exit()).as(printed.stderr()).isZero();
            Map<String, String> client = parse(printed.out());
            assertThat(client)
                    .containsEntry("bootstrap.servers", "127.0.0.1:" + server.kafkaPort())
                    .containsEntry("security.protocol", "SASL_PLAINTEXT")
                    .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                    .hasEntrySatisfying(
                            "sasl.jaas.config",
                            v -> assertThat(v)
                                    .startsWith(
                                            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"mp\" password=\""));
            assertThat(client).isEqualTo(server.kafkaClientProperties());
            CliProcess.Finished env;
            try (CliProcess p = CliProcess.start(Map.of("MP_DATA", data.toString()), "kafka-config", "--env")) {
                env = p.finish();
            }
            assertThat(env.exit()).isZero();
            assertThat(env.stdout())
                    .containsExactlyInAnyOrderElementsOf(server.sharedBrokerEnv().entrySet().stream()
                            .map(e -> "export " + e.getKey() + "='" + e.getValue() + "'")
                            .toList());

            KafkaReads.assertRefused(Map.of("bootstrap.servers", client.get("bootstrap.servers")), "mp.monitors");
            KafkaReads.assertRefused(KafkaReads.withWrongPassword(client), "mp.monitors");
            assertThat(KafkaReads.keys(client, "mp.monitors")).contains(m.id());

            bridgesATopicAsTheReadmeWalksThrough(server, client);

            Path file = data.resolve("kafka-client.properties");
            assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.getPosixFilePermissions(data)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
            String password = client.get("sasl.jaas.config").replaceAll(".*password=\"([^\"]*)\".*", "$1");
            assertThat(server.log()).doesNotContain(password);

            server.stop();
            server.restart();
            assertThat(parse(kafkaConfig(data).out()))
                    .as("the restart reuses the credentials")
                    .isEqualTo(client);
            assertThat(KafkaReads.keys(client, "mp.monitors")).contains(m.id());
            KafkaReads.assertRefused(Map.of("bootstrap.servers", client.get("bootstrap.servers")), "mp.monitors");
            assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(server.log()).doesNotContain(password);
        }
    }

    private static final String ADMIN_TOKEN = "admin-" + Long.toHexString(System.nanoTime());

    /**
     * The README's "Bridging a Kafka topic in", on the all-in-one server with its own embedded broker (the bridge role's
     * other tests run against a broker of their own): a topic created and written with the client properties {@code mp
     * kafka-config} printed, a monitor created with {@code mp monitor create --source}, followed with {@code mp watch};
     * {@code mp bridges} shows the monitor caught up. A stock Kafka tool is not at hand in the build, so a plain producer
     * with the same properties stands in for {@code kafka-console-producer.sh}.
     */
    private static void bridgesATopicAsTheReadmeWalksThrough(ServerProcess server, Map<String, String> client)
            throws Exception {
        String topic = "orders-" + Long.toHexString(System.nanoTime());
        Map<String, Object> kafka = new java.util.HashMap<>(client);
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(kafka)) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 3, (short) 1)))
                    .all()
                    .get();
        }
        java.net.URI base = server.baseUri();
        CliProcess.Finished created = CliProcess.run(
                base,
                "monitor",
                "create",
                "--id",
                topic,
                "--visibility",
                "public",
                "--types",
                "com.example.order",
                "--source",
                "kafka:" + topic,
                "--source-settings",
                "{\"format\":\"json\",\"subject\":\"/order_id\",\"tags\":[\"region\"]}");
        assertThat(created.exit()).as(created.out() + created.stderr()).isZero();
        // As kafka-console-producer sends a line: no key, the line as the value.
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                new org.apache.kafka.clients.producer.KafkaProducer<>(
                        kafka,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                            topic, "{\"order_id\":\"o-17\",\"total\":12}".getBytes(StandardCharsets.UTF_8)))
                    .get();
        }
        // mp subscribe is CommandsIT's; one JVM fewer here.
        Fixture.Reader reader = new Fixture(new Http(base))
                .subscribe(
                        new Fixture.Monitor(
                                topic,
                                Json.read(created.out().getBytes(StandardCharsets.UTF_8))
                                        .get("owner_token")
                                        .asText()),
                        "agent:claude",
                        "{\"types\":[\"com.example.order\"]}");
        try (CliProcess watch =
                CliProcess.start(base, "watch", "--subscription", reader.subscription(), "--token", reader.token())) {
            String line = watch.awaitLine(
                    "the bridged record",
                    // Its seq depends on whether the bridge's source row came first.
                    l -> l.startsWith("OBS seq=") && l.contains(" type=com.example.order "),
                    Duration.ofSeconds(90));
            assertThat(line)
                    .contains(" subject=o-17 ", " actor=probe:kafka/" + topic + " ")
                    .contains("\"source_ref\":\"kafka:" + topic + "/");
        }
        CliProcess.Finished bridges = CliProcess.run(base, "bridges", "--monitor", topic, "--token", ADMIN_TOKEN);
        assertThat(bridges.exit()).as(bridges.out() + bridges.stderr()).isZero();
        JsonNode bridge = Json.read(bridges.out().getBytes(StandardCharsets.UTF_8));
        assertThat(bridge.get("lag").asLong()).as(bridges.out()).isZero();
        assertThat(bridge.get("bridged").asLong()).as(bridges.out()).isEqualTo(1);
        assertThat(bridge.get("partitions")).hasSize(3);
    }

    @Test
    void withoutTheFileKafkaConfigSaysWhyAndExitsOne() {
        Path data = buildDir().resolve("kafka-config-none-" + System.nanoTime());
        CliProcess.Finished printed = kafkaConfig(data);
        assertThat(printed.exit()).isEqualTo(Exit.REFUSED);
        assertThat(printed.stdout()).isEmpty();
        assertThat(printed.stderr())
                .contains("no " + data.resolve("kafka-client.properties"))
                .contains("KAFKA_BOOTSTRAP_SERVERS");
    }

    private static Path buildDir() {
        return Path.of(System.getProperty("mp.test.dir", "target")).toAbsolutePath();
    }

    private static CliProcess.Finished kafkaConfig(Path data) {
        try (CliProcess p = CliProcess.start(Map.of("MP_DATA", data.toString()), "kafka-config")) {
            return p.finish();
        }
    }

    private static Map<String, String> parse(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        Map<String, String> out = new TreeMap<>();
        p.stringPropertyNames().forEach(name -> out.put(name, p.getProperty(name)));
        return out;
    }
}
