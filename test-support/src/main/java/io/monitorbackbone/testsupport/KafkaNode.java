package io.monitorbackbone.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One node (broker and controller) of {@link KafkaCluster}, run as a child process:
 * {@code java -cp <the test classpath> io.monitorbackbone.testsupport.KafkaNode node.properties}. Formats its log
 * directory with the cluster's id unless it already holds one (a restart keeps its data), starts, prints
 * {@value #READY} once the server is up, and runs until it is stopped or killed.
 */
public final class KafkaNode {
    /** Printed on stdout once {@code startup()} has returned. */
    public static final String READY = "mp-kafka-node started";
    /** The one property of the file that is not Kafka's: the cluster id every node is formatted with. */
    static final String CLUSTER_ID = "mp.cluster.id";

    private KafkaNode() {}

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            p.load(in);
        }
        String clusterId = (String) p.remove(CLUSTER_ID);
        Path dir = Path.of(p.getProperty("log.dirs"));
        if (!Files.exists(dir.resolve("meta.properties"))) {
            format(dir, clusterId, Integer.parseInt(p.getProperty("node.id")));
        }
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(p, false), Time.SYSTEM);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.shutdown();
                            server.awaitShutdown();
                            stopped.countDown();
                        },
                        "kafka-node-shutdown"));
        server.startup();
        System.out.println(READY);
        System.out.flush();
        stopped.await();
    }

    private static void format(Path dir, String clusterId, int nodeId) throws IOException {
        Files.createDirectories(dir);
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                    .setNodeId(nodeId)
                    .setClusterId(clusterId)
                    .setDirectories(List.of(dir.toString()))
                    .setMetadataLogDirectory(dir.toString())
                    .setControllerListenerName(KafkaCluster.CONTROLLER_LISTENER)
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .run();
        } catch (Exception e) {
            throw new IOException("cannot format " + dir + ": " + e, e);
        }
    }
}
