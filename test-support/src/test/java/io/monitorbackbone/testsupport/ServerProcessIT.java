package io.monitorbackbone.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerProcessIT {

    private static final String DISCOVER = "/mp/v0/discover";

    @TempDir
    static Path dir;

    private static Path jar;

    @BeforeAll
    static void packageFakeServer() throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeServer.class.getName());
        jar = dir.resolve("fake-server.jar");
        String entry = FakeServer.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream in = FakeServer.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
        }
    }

    @Test
    void survivesKillAndRestartWithTheSameEnvironmentAndPorts() {
        try (ServerProcess server =
                ServerProcess.builder().jar(jar).env("MP_DATA", dir.toString()).start()) {
            Http http = new Http(server.baseUri());
            Http.Response first = http.get(DISCOVER, null);
            assertThat(first.json().get("kafkaPort").asText()).isEqualTo(String.valueOf(server.kafkaPort()));
            assertThat(first.json().get("data").asText()).isEqualTo(dir.toString());

            server.kill9();
            assertThat(server.isAlive()).isFalse();
            server.restart();

            assertThat(http.get(DISCOVER, null).json()).isEqualTo(first.json());
            // The JVM's own answer to SIGTERM; Quarkus may exit differently.
            assertThat(server.stop()).isEqualTo(143);
            assertThat(server.log())
                    .contains("fake server up on " + server.port())
                    .contains("restarted by the test");
        }
    }

    @Test
    void leavesTheBrokerToKafkaBootstrapServersWhenSet() {
        try (ServerProcess server = ServerProcess.builder()
                .jar(jar)
                .env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
                .start()) {
            Http.Response discover = new Http(server.baseUri()).get(DISCOVER, null);

            assertThat(discover.json().get("bootstrap").asText()).isEqualTo("127.0.0.1:1");
            assertThat(discover.json().get("kafkaPort").asText()).isEmpty();
            assertThatThrownBy(server::kafkaPort).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aServerThatDiesAtStartFailsWithTheEndOfItsLog() {
        assertThatThrownBy(() ->
                        ServerProcess.builder().jar(jar).env("FAKE_EXIT", "3").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code 3")
                .hasMessageContaining("failing on purpose");
    }

    @Test
    void theFirstServerWritesTheClassArchiveOnceReadyTheNextOneMapsItAndABrokenOneChangesNothing() throws IOException {
        Path own = Files.createDirectories(dir.resolve("cds"));
        Path copy = Files.copy(jar, own.resolve("fake-server.jar"));
        try (ServerProcess first = ServerProcess.builder().jar(copy).start()) {
            assertThat(arguments(first)).contains("-XX:+RecordDynamicDumpInfo");
            assertThat(new Http(first.baseUri()).get(DISCOVER, null).status())
                    .as("it goes on serving after writing the archive")
                    .isEqualTo(200);
        }
        List<Path> archives;
        try (var files = Files.list(own)) {
            archives = files.filter(f -> f.getFileName().toString().matches("test-cds-[0-9a-f]+\\.jsa"))
                    .toList();
        }
        assertThat(archives).as("the archive the first server wrote").hasSize(1);
        assertThat(Files.size(archives.get(0))).isPositive();

        try (ServerProcess second = ServerProcess.builder().jar(copy).start()) {
            assertThat(arguments(second)).contains("-XX:SharedArchiveFile=" + archives.get(0));
            assertThat(new Http(second.baseUri()).get(DISCOVER, null).status()).isEqualTo(200);
        }

        Files.write(archives.get(0), new byte[4096]);
        try (ServerProcess third = ServerProcess.builder().jar(copy).start()) {
            assertThat(arguments(third)).contains("-XX:SharedArchiveFile=" + archives.get(0));
            assertThat(new Http(third.baseUri()).get(DISCOVER, null).status())
                    .as("a JVM that cannot map the archive starts without it")
                    .isEqualTo(200);
            assertThat(third.log()).contains("fake server up on " + third.port());
        }
    }

    private static List<String> arguments(ServerProcess server) {
        return ProcessHandle.of(server.pid())
                .flatMap(p -> p.info().arguments())
                .map(List::of)
                .orElseThrow(() -> new AssertionError("no command line for pid " + server.pid()));
    }
}
