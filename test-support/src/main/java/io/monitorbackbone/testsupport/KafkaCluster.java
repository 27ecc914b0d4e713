package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A KRaft cluster of several nodes on 127.0.0.1, each broker and controller in one child JVM ({@link KafkaNode}) with
 * its own ports and log directory, started from the test classpath: what a test needs to kill a broker the way a
 * machine dies ({@code kill -9}), start it again on the same ports and data, and ask who leads a partition and whether
 * a node is back in its ISR. PLAINTEXT listeners (loopback only). The internal topics (offsets, transactions) have
 * three replicas and a min ISR of two, as on a production cluster; {@code default.replication.factor} stays 1, so a
 * topic has more copies only when whoever created it asked for them.
 *
 * <p>{@link #close} kills every node, waits for each to be gone and deletes the data; each node's output stays in its
 * log file under the build directory.
 */
public final class KafkaCluster implements AutoCloseable {
    static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final String HOST = "127.0.0.1";
    /** Generous: three JVMs start at once on a shared 2-core machine. */
    private static final Duration START = Duration.ofSeconds(120);

    private static final Duration STOP = Duration.ofSeconds(30);
    private static final List<String> JVM_OPTIONS =
            List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true");

    private final Path dir;
    private final List<NodeProcess> nodes;
    private final Admin admin;

    private KafkaCluster(Path dir, List<NodeProcess> nodes) {
        this.dir = dir;
        this.nodes = nodes;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        this.admin = Admin.create(p);
        // A test JVM that exits must not leave brokers holding ports and directories.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> nodes.forEach(n -> {
                            Process process = n.process;
                            if (process != null) {
                                process.destroyForcibly();
                            }
                        }),
                        "kafka-cluster-kill"));
    }

    /** Starts {@code size} nodes at once (the quorum forms once a majority runs) and returns when every one is a live broker. */
    public static KafkaCluster start(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster has at least one node");
        }
        Path dir = BuildDir.resolve("kafka-cluster-" + UUID.randomUUID());
        String clusterId = Uuid.randomUuid().toString();
        List<NodeProcess> nodes = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            nodes.add(new NodeProcess(id, FreePorts.next(), FreePorts.next(), dir));
        }
        String voters = nodes.stream()
                .map(n -> n.id + "@" + HOST + ":" + n.controllerPort)
                .collect(Collectors.joining(","));
        int replicas = Math.min(3, size);
        for (NodeProcess node : nodes) {
            node.writeConfig(clusterId, voters, replicas);
        }
        KafkaCluster cluster = new KafkaCluster(dir, nodes);
        try {
            nodes.forEach(NodeProcess::launch);
            nodes.forEach(NodeProcess::awaitStarted);
            cluster.awaitBrokers(size);
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** Every node's client listener: a client reaches the cluster whichever node is down. */
    public String bootstrapServers() {
        return nodes.stream().map(n -> HOST + ":" + n.port).collect(Collectors.joining(","));
    }

    /** What a client needs to connect: the cluster (PLAINTEXT). */
    public Map<String, String> clientProperties() {
        return Map.of("bootstrap.servers", bootstrapServers());
    }

    /** An admin client of the cluster, closed with it. */
    public Admin admin() {
        return admin;
    }

    public int size() {
        return nodes.size();
    }

    /** The node ids, 1 to {@link #size}. */
    public List<Integer> nodeIds() {
        return nodes.stream().map(n -> n.id).toList();
    }

    public boolean isAlive(int nodeId) {
        return node(nodeId).alive();
    }

    /** The process id of a node's current (or last) process. */
    public long pid(int nodeId) {
        Process current = node(nodeId).process;
        if (current == null) {
            throw new IllegalStateException("node " + nodeId + " was never started");
        }
        return current.pid();
    }

    /** SIGKILL, as a machine that dies: no controlled shutdown, no leadership handed over. Returns once it is gone. */
    public void kill9(int nodeId) {
        node(nodeId).kill();
    }

    /** Starts a killed node again on its ports and data; returns once it is a live broker of the cluster again. */
    public void restart(int nodeId) {
        NodeProcess node = node(nodeId);
        if (node.alive()) {
            throw new IllegalStateException("node " + nodeId + " is still running");
        }
        node.appendToLog("\n---- restarted by the test at " + Instant.now() + " ----\n");
        node.launch();
        node.awaitStarted();
        try {
            await().atMost(START)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> liveBrokers().contains(nodeId));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "node " + nodeId + " did not rejoin the cluster within " + START + "\n" + node.logTail());
        }
    }

    /** The ids of the brokers the controller counts as live (registered and not fenced). */
    public Set<Integer> liveBrokers() {
        try {
            return admin.describeCluster().nodes().get(20, TimeUnit.SECONDS).stream()
                    .map(Node::id)
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the cluster did not describe itself: " + e, e);
        }
    }

    /** The node that leads the partition now, or -1 when none does (an election in progress). */
    public int leaderOf(TopicPartition partition) {
        Node leader = describe(partition).leader();
        return leader == null || leader.isEmpty() ? -1 : leader.id();
    }

    /** The partition's in-sync replicas now. */
    public Set<Integer> isr(TopicPartition partition) {
        return describe(partition).isr().stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The partition's replicas (assigned, in sync or not). */
    public Set<Integer> replicas(TopicPartition partition) {
        return describe(partition).replicas().stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
    }

    public boolean inIsr(TopicPartition partition, int nodeId) {
        return isr(partition).contains(nodeId);
    }

    /** Waits until the node is in the partition's ISR (after a restart: caught up with the leader). */
    public void awaitInIsr(TopicPartition partition, int nodeId, Duration atMost) {
        try {
            await().atMost(atMost)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> inIsr(partition, nodeId));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("node " + nodeId + " was not back in the ISR of " + partition + " within " + atMost
                    + " (ISR " + isrOrWhy(partition) + ")");
        }
    }

    /** A node's output so far (Kafka's log, on stdout of the child). */
    public String log(int nodeId) {
        return node(nodeId).log();
    }

    @Override
    public void close() {
        try {
            admin.close(Duration.ofSeconds(5));
        } finally {
            for (NodeProcess node : nodes) {
                node.kill();
            }
            Set<Path> kept = nodes.stream().map(n -> n.logFile).collect(Collectors.toSet());
            kept.add(dir);
            try (Stream<Path> paths = Files.walk(dir)) {
                // Every node's data; its output stays, to read after a failure.
                paths.sorted(Comparator.reverseOrder())
                        .filter(p -> !kept.contains(p))
                        .forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private String isrOrWhy(TopicPartition partition) {
        try {
            return isr(partition).toString();
        } catch (RuntimeException e) {
            return "unknown: " + e;
        }
    }

    private TopicDescription describeTopic(String topic) {
        try {
            return admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(20, TimeUnit.SECONDS)
                    .get(topic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot describe " + topic + ": " + e, e);
        }
    }

    private TopicPartitionInfo describe(TopicPartition partition) {
        return describeTopic(partition.topic()).partitions().stream()
                .filter(p -> p.partition() == partition.partition())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no partition " + partition));
    }

    private void awaitBrokers(int size) {
        try {
            await().atMost(START)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> liveBrokers().size() == size);
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("the cluster did not have " + size + " live brokers within " + START + "\n"
                    + nodes.stream().map(NodeProcess::logTail).collect(Collectors.joining("\n")));
        }
    }

    private NodeProcess node(int nodeId) {
        if (nodeId < 1 || nodeId > nodes.size()) {
            throw new IllegalArgumentException("no node " + nodeId + " in a cluster of " + nodes.size());
        }
        return nodes.get(nodeId - 1);
    }

    /** One node: its ports and files, and its current process. */
    private static final class NodeProcess {
        final int id;
        final int port;
        final int controllerPort;
        final Path config;
        final Path data;
        final Path logFile;
        volatile Process process;

        NodeProcess(int id, int port, int controllerPort, Path dir) {
            this.id = id;
            this.port = port;
            this.controllerPort = controllerPort;
            this.config = dir.resolve("node-" + id + ".properties");
            this.data = dir.resolve("node-" + id);
            this.logFile = dir.resolve("node-" + id + ".log");
        }

        void writeConfig(String clusterId, String voters, int replicas) {
            Properties p = new Properties();
            p.put(KafkaNode.CLUSTER_ID, clusterId);
            p.put("process.roles", "broker,controller");
            p.put("node.id", String.valueOf(id));
            p.put("controller.quorum.voters", voters);
            p.put(
                    "listeners",
                    "PLAINTEXT://" + HOST + ":" + port + "," + CONTROLLER_LISTENER + "://" + HOST + ":"
                            + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
            p.put("controller.listener.names", CONTROLLER_LISTENER);
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("log.dirs", data.toString());
            // The cluster's own topics as durable as a production cluster's; the server's own topics get what the
            // server asks for, since the default stays 1.
            p.put("offsets.topic.replication.factor", String.valueOf(replicas));
            p.put("transaction.state.log.replication.factor", String.valueOf(replicas));
            p.put("transaction.state.log.min.isr", String.valueOf(Math.min(2, replicas)));
            p.put("share.coordinator.state.topic.replication.factor", String.valueOf(replicas));
            p.put("share.coordinator.state.topic.min.isr", String.valueOf(Math.min(2, replicas)));
            p.put("default.replication.factor", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.put("auto.create.topics.enable", "false");
            p.put("num.partitions", "1");
            p.put("log.cleaner.dedupe.buffer.size", "2097152");
            // A killed node's partitions move once its session ends: shorter than the 9 s default, long enough not
            // to fence a live node whose heartbeats a loaded machine delays.
            p.put("broker.heartbeat.interval.ms", "1000");
            p.put("broker.session.timeout.ms", "6000");
            try (Writer out = Files.newBufferedWriter(config, UTF_8)) {
                p.store(out, "node " + id + " of a test cluster");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void launch() {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(JVM_OPTIONS);
            command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
            command.addAll(List.of("-cp", System.getProperty("java.class.path")));
            command.add(KafkaNode.class.getName());
            command.add(config.toString());
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
            try {
                process = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start Kafka node " + id, e);
            }
        }

        void awaitStarted() {
            Process current = process;
            try {
                await().atMost(START).pollInterval(Duration.ofMillis(200)).until(() -> {
                    if (!current.isAlive()) {
                        throw new IllegalStateException(
                                "Kafka node " + id + " exited with " + current.exitValue() + "\n" + logTail());
                    }
                    return started();
                });
            } catch (ConditionTimeoutException e) {
                throw new IllegalStateException(
                        "Kafka node " + id + " did not start within " + START + "\n" + logTail(), e);
            }
        }

        /** Whether the current process has printed its ready line (each launch's output follows the last). */
        private boolean started() {
            String log = log();
            int restart = log.lastIndexOf("---- restarted by the test");
            return log.indexOf(KafkaNode.READY, Math.max(0, restart)) >= 0;
        }

        boolean alive() {
            Process current = process;
            return current != null && current.isAlive();
        }

        void kill() {
            Process current = process;
            if (current == null) {
                return;
            }
            current.destroyForcibly();
            try {
                if (!current.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("Kafka node " + id + " (pid " + current.pid() + ") was still there "
                            + STOP + " after SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        String log() {
            try {
                return Files.exists(logFile) ? new String(Files.readAllBytes(logFile), UTF_8) : "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        String logTail() {
            List<String> lines = log().lines().toList();
            return "---- node " + id + " (" + logFile + ") ----\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }

        void appendToLog(String text) {
            try {
                Files.writeString(
                        logFile,
                        text,
                        java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
