package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.kafka.Catalog;
import io.monitorbackbone.gateway.service.SubscriptionService;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * The mute sweep, on a timer. Of all gateways sharing a cluster exactly one sweeps: the member of the consumer group
 * {@code mp.sweeper} that holds the one partition of topic {@code mp.sweeper}. Kafka's group protocol elects it and
 * hands the partition on when that process dies.
 */
public final class Sweeper implements AutoCloseable {
    public static final String TOPIC = "mp.sweeper";
    private static final Logger LOGGER = Logger.getLogger(Sweeper.class);
    private static final Duration PERIOD = Duration.ofMillis(500);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Catalog catalog;
    private final SubscriptionService subscriptions;
    private final Clock clock;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean leader;

    public Sweeper(KafkaConsumer<byte[], byte[]> consumer, Catalog catalog, SubscriptionService subscriptions, Clock clock) {
        this.consumer = consumer;
        this.catalog = catalog;
        this.subscriptions = subscriptions;
        this.clock = clock;
        this.thread = new Thread(this::run, "mp-sweeper");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public boolean leader() {
        return leader;
    }

    private void run() {
        consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                leader = false;
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                leader = !partitions.isEmpty();
                if (leader) {
                    LOGGER.info("this gateway runs the mute sweep");
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                leader = false;
            }
        });
        while (running) {
            try {
                consumer.poll(PERIOD);
                if (leader) {
                    sweep();
                }
            } catch (WakeupException e) {
                // close() wants the loop to end
            } catch (RuntimeException e) {
                LOGGER.errorf(e, "mute sweep failed; trying again");
            }
        }
        consumer.close(Duration.ofSeconds(5));
    }

    private void sweep() {
        for (Monitor m : catalog.monitors()) {
            for (Subscription s : catalog.subscriptionsOf(m.id())) {
                if (s.active() && subscriptions.retireIfMuted(s.id(), clock.instant())) {
                    LOGGER.infof("retired muted subscription=%s monitor=%s", s.id(), s.monitor());
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
