package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.KafkaReads;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
    void onlyAClientConfiguredFromKafkaConfigReadsTheEmbeddedBrokerAndARestartKeepsTheCredentials() throws IOException {
        Path data = buildDir().resolve("kafka-config-" + System.nanoTime());
        try (ServerProcess server =
                ServerProcess.builder().env("MP_DATA", data.toString()).start()) {
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
