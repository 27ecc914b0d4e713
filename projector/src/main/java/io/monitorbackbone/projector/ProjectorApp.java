package io.monitorbackbone.projector;

import io.monitorbackbone.binding.PollPace;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The projector as a process of its own: creates {@code mp.state} if missing, then runs the topology until stopped. */
public final class ProjectorApp {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProjectorApp.class);

    private ProjectorApp() {}

    public static void main(String[] args) throws Exception {
        ProjectorConfig config = ProjectorConfig.fromEnv(System.getenv());
        KafkaStreams streams = create(config);
        CountDownLatch stopped = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            LOGGER.info("projector state={} from={}", now, before);
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            LOGGER.error("projector thread failed; stopping so the supervisor restarts the process", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            streams.close(Duration.ofSeconds(30));
                            stopped.countDown();
                        },
                        "projector-shutdown"));
        LOGGER.info(
                "projector starting bootstrap={} partitions={} threads={} instance={}",
                config.bootstrapServers(),
                config.partitions(),
                config.threads(),
                config.instanceId());
        streams.start();
        stopped.await();
        if (streams.state() == KafkaStreams.State.ERROR) {
            System.exit(1);
        }
    }

    /** The projector's Streams client, not started; {@code mp.state} exists when this returns. */
    public static KafkaStreams create(ProjectorConfig config) throws InterruptedException, TimeoutException {
        ensureStateTopic(config);
        java.util.concurrent.atomic.AtomicInteger thread = new java.util.concurrent.atomic.AtomicInteger();
        return new KafkaStreams(
                ProjectorTopology.build(config.partitions(), config.held()),
                config.streamsProperties(),
                new PollPace.Supplier(
                        config.commitIntervalMs(),
                        () -> new NewMonitorTopics(config.newMonitorTopicsProperties(thread.incrementAndGet()))));
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
