package io.monitorbackbone.gateway;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.kafka.ConsumerLoop;
import io.monitorbackbone.gateway.service.SubscriptionService;
import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * The mute sweep, on a timer. Of all gateways sharing a cluster exactly one sweeps: the member of the consumer group
 * {@code mp.sweeper} that holds the one partition of topic {@code mp.sweeper}. Kafka's group protocol elects it and
 * hands the partition on when that process dies. The same election hands out the webhook push ({@link Pusher}): the
 * gateway that sweeps pushes, and a gateway losing the partition ends its pushes in flight before the group moves on.
 */
public final class Sweeper extends ConsumerLoop {
    /** The consumer group, named after the topic whose one partition it hands to the sweeping gateway. */
    public static final String GROUP = Topics.SWEEPER;

    private static final Logger LOGGER = Logger.getLogger(Sweeper.class);
    private static final Duration PERIOD = Duration.ofMillis(500);

    private final Tables tables;
    private final SubscriptionService subscriptions;
    private final Clock clock;
    private final Pusher pusher;
    private volatile boolean leader;

    public Sweeper(
            KafkaConsumer<byte[], byte[]> consumer,
            Tables tables,
            SubscriptionService subscriptions,
            Clock clock,
            Pusher pusher) {
        super(consumer, "mp-sweeper");
        this.tables = tables;
        this.subscriptions = subscriptions;
        this.clock = clock;
        this.pusher = pusher;
    }

    public void start() {
        startThread();
    }

    @Override
    protected boolean init() {
        consumer.subscribe(List.of(Topics.SWEEPER), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                leader = false;
                // Returns once the pushes in flight have ended: only then may the group hand the partition on.
                pusher.lead(false);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                // The partition is the election's token, never read: paused, the consumer sends the broker no fetch
                // (it sent two a second for nothing), and its polls still keep it in the group.
                consumer.pause(partitions);
                leader = !partitions.isEmpty();
                if (leader) {
                    LOGGER.info("this gateway runs the mute sweep");
                }
                pusher.lead(leader);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                leader = false;
                pusher.lead(false);
            }
        });
        return true;
    }

    @Override
    protected void step() {
        consumer.poll(PERIOD);
        if (leader) {
            sweep();
        }
    }

    private void sweep() {
        for (Monitor m : tables.monitors()) {
            for (Subscription s : tables.subscriptionsOf(m.id())) {
                if (s.active() && subscriptions.retireIfMuted(s.id(), clock.instant())) {
                    LOGGER.infof("retired muted subscription=%s monitor=%s", s.id(), s.monitor());
                }
            }
        }
    }
}
