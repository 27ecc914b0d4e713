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
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/** A single-node KRaft Kafka broker (broker and controller in one) running inside this JVM. */
public final class EmbeddedKafka implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final int BIND_ATTEMPTS = 3;

    private final KafkaRaftServer server;
    private final Path logDir;
    private final int port;
    private final DirLock lock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedKafka(KafkaRaftServer server, Path logDir, int port, DirLock lock) {
        this.server = server;
        this.logDir = logDir;
        this.port = port;
        this.lock = lock;
    }

    /** Formats {@code logDir} unless it already holds a broker, then starts; {@code port} 0 picks a free one. */
    public static EmbeddedKafka start(Path logDir, int port) {
        Path dir = logDir.toAbsolutePath();
        DirLock lock = DirLock.acquire(dir);
        try {
            if (!Files.exists(dir.resolve("meta.properties"))) {
                format(dir);
            }
        } catch (Exception e) {
            lock.close();
            throw new IllegalStateException("cannot format the Kafka log directory " + dir + ": " + e.getMessage(), e);
        }
        for (int attempt = 1; ; attempt++) {
            int brokerPort = port != 0 ? port : freePort();
            KafkaRaftServer server = null;
            try {
                server = new KafkaRaftServer(new KafkaConfig(config(dir, brokerPort, freePort()), false), Time.SYSTEM);
                server.startup();
                return new EmbeddedKafka(server, dir, brokerPort, lock);
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

    private static void format(Path dir) throws Exception {
        new Formatter()
                .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                .setNodeId(NODE_ID)
                .setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(dir.toString()))
                .setMetadataLogDirectory(dir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                .run();
    }

    private static Properties config(Path dir, int port, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        p.put(
                "listeners",
                "PLAINTEXT://" + HOST + ":" + port + "," + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.toString());
        // A single node can hold one replica of everything.
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        // The default 128 MiB cleaner buffer is allocated up front; compacted topics here are small.
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        // After a kill -9 the restarted controller refuses the broker's new registration until the dead one's
        // session expires: 9 s by default. Broker and controller share this JVM, so heartbeats are only missed
        // in a pause long enough to stall both.
        p.put("broker.heartbeat.interval.ms", "500");
        p.put("broker.session.timeout.ms", "3000");
        return p;
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
