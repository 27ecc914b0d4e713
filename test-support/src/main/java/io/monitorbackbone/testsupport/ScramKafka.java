package io.monitorbackbone.testsupport;

import io.monitorbackbone.broker.ClientCredentials;
import io.monitorbackbone.broker.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A broker of a test's own that requires SASL/SCRAM-SHA-512 of every client, as a secured cluster does: the project's
 * embedded broker started with a user, in this JVM, its data under the build directory (deleted on close).
 */
public final class ScramKafka implements AutoCloseable {

    private final EmbeddedKafka kafka;
    private final ClientCredentials user;
    private final Path dir;

    private ScramKafka(EmbeddedKafka kafka, ClientCredentials user, Path dir) {
        this.kafka = kafka;
        this.user = user;
        this.dir = dir;
    }

    public static ScramKafka start() {
        Path dir = BuildDir.resolve("scram-kafka-" + UUID.randomUUID());
        ClientCredentials user = ClientCredentials.generate();
        return new ScramKafka(EmbeddedKafka.start(dir, 0, user, true), user, dir);
    }

    /**
     * A broker that also enforces ACLs (Kafka's {@code StandardAuthorizer}): its own user, which {@link
     * #clientProperties()} logs in as, is a super user; any other user may do only what an ACL allows.
     */
    public static ScramKafka startAuthorizing() {
        Path dir = BuildDir.resolve("scram-kafka-" + UUID.randomUUID());
        ClientCredentials user = ClientCredentials.generate();
        Map<String, String> authorizer = Map.of(
                "authorizer.class.name",
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users",
                "User:" + user.username());
        return new ScramKafka(EmbeddedKafka.start(dir, 0, user, true, authorizer), user, dir);
    }

    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** The cluster and the user: what a client needs to connect. */
    public Map<String, String> clientProperties() {
        return kafka.clientProperties();
    }

    /** The user's password, for tests that check it is never printed. */
    public String password() {
        return user.password();
    }

    /** A server's environment for this broker: the cluster, and the user only as {@code MP_KAFKA_*} pass-through. */
    public Map<String, String> serverEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrapServers());
        user.securityProperties()
                .forEach((name, value) -> env.put(
                        "MP_KAFKA_" + name.toUpperCase(java.util.Locale.ROOT).replace('.', '_'), value));
        return env;
    }

    @Override
    public void close() {
        kafka.close();
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
