package io.monitorbackbone.projector;

import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The projector as a process of its own: creates {@code mp.state} if missing, then folds until stopped. */
public final class ProjectorApp {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProjectorApp.class);

    private ProjectorApp() {}

    public static void main(String[] args) throws Exception {
        ProjectorConfig config = ProjectorConfig.fromEnv(System.getenv());
        Projector projector = Projector.create(config);
        CountDownLatch stopped = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
        projector.onFailure(e -> {
            LOGGER.error("a projector loop failed; stopping so the supervisor restarts the process", e);
            failed.set(true);
            stopped.countDown();
            return false;
        });
        projector.onRunning(() -> LOGGER.info(
                "projector running: folding {} log(s)", projector.monitors().size()));
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            projector.close(Duration.ofSeconds(30));
                            stopped.countDown();
                        },
                        "projector-shutdown"));
        LOGGER.info(
                "projector starting bootstrap={} threads={} instance={}",
                config.bootstrapServers(),
                config.threads(),
                config.instanceId());
        projector.start();
        stopped.await();
        if (failed.get()) {
            System.exit(1);
        }
    }

    /**
     * Refuses durability settings the cluster cannot or should not take ({@link
     * io.monitorbackbone.binding.Durability#checkCluster}), then creates the compacted {@code mp.state} topic; an
     * existing one is kept as it is.
     */
    public static void ensureStateTopic(ProjectorConfig config) throws InterruptedException, TimeoutException {
        TopicLayout layout = TopicLayout.of(config.durability(), 1, 1);
        try (Admin admin = Admin.create(config.adminProperties())) {
            config.durability().checkCluster(admin, Duration.ofSeconds(60));
            if (TopicLayout.createIfMissing(
                    admin, layout.state(config.stateTopicPartitions()), Duration.ofSeconds(60))) {
                LOGGER.info("created topic={} partitions={}", Topics.STATE, config.stateTopicPartitions());
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create " + Topics.STATE, e.getCause());
        }
    }
}
