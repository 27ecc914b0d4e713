package io.monitorbackbone.broker;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node KRaft Kafka broker (broker and controller in one) running inside this JVM, on 127.0.0.1 only.
 *
 * <p>Started with a {@link ClientCredentials} user, both listeners require it: the client listener SASL/SCRAM-SHA-512
 * (the user is written into the metadata when the directory is formatted), the controller listener SASL/PLAIN with the
 * same password (KRaft cannot use SCRAM there; a controller listener without authentication answers any local
 * process's admin client, and its API list includes {@code CreateTopics}, {@code IncrementalAlterConfigs} and
 * {@code AlterUserScramCredentials}). Started without one, both are
 * PLAINTEXT: only the tests' shared broker runs so.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final String PLAIN_LOGIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
    private static final String SCRAM_LOGIN = "org.apache.kafka.common.security.scram.ScramLoginModule";
    private static final int BIND_ATTEMPTS = 3;
    /** Partitions of {@code __consumer_offsets} and {@code __transaction_state} in a new data directory. */
    static final int COORDINATOR_PARTITIONS = 4;

    private final KafkaRaftServer server;
    private final Path logDir;
    private final int port;
    private final int controllerPort;
    private final ClientCredentials user;
    private final DirLock lock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedKafka(
            KafkaRaftServer server, Path logDir, int port, int controllerPort, ClientCredentials user, DirLock lock) {
        this.server = server;
        this.logDir = logDir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.user = user;
        this.lock = lock;
    }

    /**
     * Formats {@code logDir} unless it already holds a broker, then starts with PLAINTEXT listeners (no authentication:
     * for tests); {@code port} 0 picks a free one.
     */
    public static EmbeddedKafka start(Path logDir, int port) {
        return start(logDir, port, null, false);
    }

    /**
     * Formats {@code logDir} unless it already holds a broker, then starts with listeners that require {@code user}
     * (null: PLAINTEXT); {@code port} 0 picks a free one.
     *
     * @param newUser the user was just made: on a directory formatted before (by a broker without authentication, or
     *                one whose credentials were lost) the broker is first started once on other ports, where the
     *                user's password also opens the client listener with SASL/PLAIN, to set the user's SCRAM credential
     */
    public static EmbeddedKafka start(Path logDir, int port, ClientCredentials user, boolean newUser) {
        return start(logDir, port, user, newUser, Map.of());
    }

    /**
     * As {@link #start(Path, int, ClientCredentials, boolean)}, with further broker settings over the ones chosen here
     * (a test's authorizer, for one).
     */
    public static EmbeddedKafka start(
            Path logDir, int port, ClientCredentials user, boolean newUser, Map<String, String> brokerConfig) {
        Path dir = logDir.toAbsolutePath();
        DirLock lock = DirLock.acquire(dir);
        try {
            if (!Files.exists(dir.resolve("meta.properties"))) {
                format(dir, user);
            } else if (user != null && newUser) {
                setUser(dir, user);
            }
        } catch (Exception e) {
            lock.close();
            throw new IllegalStateException("cannot prepare the Kafka log directory " + dir + ": " + rootMessage(e), e);
        }
        for (int attempt = 1; ; attempt++) {
            int brokerPort = port != 0 ? port : freePort();
            int controllerPort = freePort();
            KafkaRaftServer server = null;
            try {
                Properties config = config(dir, brokerPort, controllerPort, user, false);
                config.putAll(brokerConfig);
                server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
                server.startup();
                return new EmbeddedKafka(server, dir, brokerPort, controllerPort, user, lock);
            } catch (RuntimeException e) {
                // startup() does not always stop what it already started (the controller, when the broker fails).
                if (server != null) {
                    stopQuietly(server);
                }
                // A port we probed as free can be taken before Kafka binds it; a port we were given will stay taken.
                if (port != 0 || !isBindFailure(e) || attempt == BIND_ATTEMPTS) {
                    lock.close();
                    throw new IllegalStateException(
                            "cannot start Kafka on " + HOST + ":" + brokerPort + " with log dir " + dir + ": "
                                    + rootMessage(e),
                            e);
                }
            }
        }
    }

    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    /** The controller listener, for an admin client's {@code bootstrap.controllers}. */
    String controllerServers() {
        return HOST + ":" + controllerPort;
    }

    /** The client properties that connect to this broker: the cluster, and the user when it requires one. */
    public Map<String, String> clientProperties() {
        return user == null
                ? Map.of("bootstrap.servers", bootstrapServers())
                : user.clientProperties(bootstrapServers());
    }

    public Path logDir() {
        return logDir;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                server.shutdown();
                server.awaitShutdown();
            } finally {
                lock.close();
            }
        }
    }

    private static void format(Path dir, ClientCredentials user) throws Exception {
        Formatter formatter = new Formatter();
        if (user != null) {
            // kafka-storage format --add-scram: the user is in the metadata before the broker first accepts a client.
            formatter.setScramArguments(List.of(
                    ClientCredentials.MECHANISM + "=[name=" + user.username() + ",password=" + user.password() + "]"));
        }
        formatter
                .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(dir.toString()))
                .setMetadataLogDirectory(dir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .run();
    }

    /** Starts the broker on free ports with SASL/PLAIN beside SCRAM, sets the user's SCRAM credential over it, stops. */
    private static void setUser(Path dir, ClientCredentials user) throws Exception {
        int brokerPort = freePort();
        KafkaRaftServer server = new KafkaRaftServer(
                new KafkaConfig(config(dir, brokerPort, freePort(), user, true), false), Time.SYSTEM);
        try {
            server.startup();
            Map<String, Object> p = new HashMap<>();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, HOST + ":" + brokerPort);
            p.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
            p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
            p.put(SaslConfigs.SASL_JAAS_CONFIG, user.jaas(PLAIN_LOGIN));
            try (Admin admin = Admin.create(p)) {
                admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                                user.username(),
                                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192),
                                user.password())))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            }
        } finally {
            stopQuietly(server);
        }
    }

    /** @param plainToo the client listener also takes SASL/PLAIN with the user's password (only to set its SCRAM credential) */
    private static Properties config(Path dir, int port, int controllerPort, ClientCredentials user, boolean plainToo) {
        String client = user == null ? "PLAINTEXT" : "SASL_PLAINTEXT";
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        p.put(
                "listeners",
                client + "://" + HOST + ":" + port + "," + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        p.put("advertised.listeners", client + "://" + HOST + ":" + port);
        p.put("listener.security.protocol.map", client + ":" + client + "," + CONTROLLER_LISTENER + ":" + client);
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", client);
        if (user != null) {
            // The broker's own connections (to itself, to its controller) log in as the same user.
            p.put("sasl.enabled.mechanisms", ClientCredentials.MECHANISM + ",PLAIN");
            p.put("sasl.mechanism.inter.broker.protocol", plainToo ? "PLAIN" : ClientCredentials.MECHANISM);
            p.put("sasl.mechanism.controller.protocol", "PLAIN");
            p.put(
                    "listener.name.sasl_plaintext.sasl.enabled.mechanisms",
                    ClientCredentials.MECHANISM + (plainToo ? ",PLAIN" : ""));
            p.put("listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", user.jaas(SCRAM_LOGIN));
            p.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
            p.put("listener.name.controller.plain.sasl.jaas.config", plainServer(user));
            if (plainToo) {
                p.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", plainServer(user));
            }
        }
        p.put("log.dirs", dir.toString());
        // A single node can hold one replica of everything.
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        // The group and transaction coordinators' topics are created with 50 partitions each by default: a hundred
        // logs (and their index files) that one node creates, loads at every start, recovers after a kill -9 and
        // keeps timers for, while this server's consumer groups and transactional producers number a few dozen.
        // Only a new data directory is affected: the coordinators use the partitions an existing topic has.
        p.put("offsets.topic.num.partitions", String.valueOf(COORDINATOR_PARTITIONS));
        p.put("transaction.state.log.num.partitions", String.valueOf(COORDINATOR_PARTITIONS));
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        // The default 128 MiB cleaner buffer is allocated up front; compacted topics here are small.
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        // After a kill -9 the restarted controller refuses the broker's new registration until the dead one's
        // session expires: 9 s by default. Broker and controller share this JVM, so heartbeats are only missed
        // in a pause long enough to stall both.
        p.put("broker.heartbeat.interval.ms", "1000");
        p.put("broker.session.timeout.ms", "3000");
        // The controller appends a no-op record to the metadata log this often when nothing else changes (500 ms by
        // default): a write, a commit and a metadata update in the broker twice a second, for the liveness signal of
        // a quorum that here is this one process.
        p.put("metadata.max.idle.interval.ms", "5000");
        return p;
    }

    /** SASL/PLAIN's server side: the one user and its password, which the broker also logs in with. */
    private static String plainServer(ClientCredentials user) {
        return PLAIN_LOGIN + " required username=\"" + user.username() + "\" password=\"" + user.password() + "\" user_"
                + user.username() + "=\"" + user.password() + "\";";
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + HOST, e);
        }
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }

    // Kafka wraps the cause a person can act on ("Address already in use") in several layers.
    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.toString();
    }

    private static void stopQuietly(KafkaRaftServer server) {
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException ignored) {
            // The start failure is the error worth reporting.
        }
    }

    /**
     * Kafka locks a log directory only once its broker half starts, after the controller half has already
     * written to the metadata log there: a second broker on the same directory must be stopped before that.
     */
    private record DirLock(FileChannel channel) implements AutoCloseable {

        static DirLock acquire(Path dir) {
            FileChannel channel = null;
            try {
                Files.createDirectories(dir);
                channel = FileChannel.open(
                        dir.resolve(".embedded-kafka.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                if (channel.tryLock() != null) {
                    return new DirLock(channel);
                }
            } catch (IOException e) {
                closeQuietly(channel);
                throw new UncheckedIOException("cannot lock the Kafka log directory " + dir, e);
            } catch (OverlappingFileLockException e) {
                // held by this JVM
            }
            closeQuietly(channel);
            throw new IllegalStateException("cannot start Kafka: another broker is using the log directory " + dir);
        }

        @Override
        public void close() {
            closeQuietly(channel);
        }

        private static void closeQuietly(FileChannel channel) {
            try {
                if (channel != null) {
                    channel.close();
                }
            } catch (IOException ignored) {
                // closing releases the lock; nothing else to do
            }
        }
    }
}
