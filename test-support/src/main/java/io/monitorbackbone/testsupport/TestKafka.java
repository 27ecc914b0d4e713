package io.monitorbackbone.testsupport;

import io.monitorbackbone.broker.EmbeddedKafka;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/** The one Kafka broker of this test JVM, started on first use and stopped when the JVM exits. */
public final class TestKafka {

    private static final String IMAGE = "apache/kafka:4.1.2";
    private static final Path DOCKER_SOCKET = Path.of("/var/run/docker.sock");

    private static String bootstrapServers;

    private TestKafka() {}

    /** {@code KAFKA_BOOTSTRAP_SERVERS} if set, else a Testcontainers broker if Docker answers, else an embedded one. */
    public static synchronized String bootstrapServers() {
        if (bootstrapServers == null) {
            JvmCpu.logAtExit();
            String external = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
            bootstrapServers = external != null && !external.isBlank()
                    ? external
                    : dockerAnswers() ? startContainer() : startEmbedded();
        }
        return bootstrapServers;
    }

    private static String startContainer() {
        // Match the embedded broker, so that a test which relies on topics appearing by themselves fails everywhere.
        KafkaContainer kafka = new KafkaContainer(IMAGE)
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1");
        kafka.start();
        onExit(kafka::stop);
        return kafka.getBootstrapServers();
    }

    private static String startEmbedded() {
        Path dir = BuildDir.resolve("test-kafka-" + UUID.randomUUID());
        EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0);
        onExit(() -> {
            kafka.close();
            deleteRecursively(dir);
        });
        return kafka.bootstrapServers();
    }

    // Testcontainers takes seconds to conclude there is no Docker; a socket that nobody answers takes microseconds.
    private static boolean dockerAnswers() {
        if (System.getenv("DOCKER_HOST") == null && !socketAnswers(DOCKER_SOCKET)) {
            return false;
        }
        return DockerClientFactory.instance().isDockerAvailable();
    }

    private static boolean socketAnswers(Path socket) {
        if (!Files.exists(socket)) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void onExit(Runnable action) {
        Runtime.getRuntime().addShutdownHook(new Thread(action, "test-kafka-shutdown"));
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Left behind in the build directory; mvn clean takes it.
        }
    }
}
