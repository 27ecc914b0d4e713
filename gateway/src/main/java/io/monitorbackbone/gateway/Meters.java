package io.monitorbackbone.gateway;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.kafka.Follower;
import io.monitorbackbone.gateway.kafka.KafkaPorts;
import io.monitorbackbone.gateway.kafka.KafkaRuntime;
import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The gauges that read the process's state at scrape time (active subscriptions, the follower's lag, the build), and
 * the Kafka clients' and Streams apps' own metrics, bound once {@link Lifecycle} has started them. The services record
 * their own meters through {@code service/Metrics}.
 */
@ApplicationScoped
public class Meters {
    @Inject
    MeterRegistry registry;

    @Inject
    KafkaPorts kafka;

    @Inject
    Tables tables;

    @ConfigProperty(name = "quarkus.application.version", defaultValue = "unknown")
    String version;

    private final List<AutoCloseable> binders = new ArrayList<>();

    /**
     * Where the Streams apps' metrics are refreshed, so that {@link #close} can wait for a refresh in flight: a
     * refresh reads every metric's value, RocksDB's properties among them, and the binder's own close only interrupts
     * it, so a store closed right after could be read in native code after it was freed (a SIGSEGV on stop, seen
     * once under load).
     */
    private final ScheduledExecutorService streamsMetrics = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "mp-streams-metrics");
        t.setDaemon(true);
        return t;
    });

    /** How long {@link #close} waits for a Streams metrics refresh in flight. */
    static final Duration REFRESH_WAIT = Duration.ofSeconds(10);

    /**
     * Kafka's client metrics carry a topic (and partition) tag: one per monitor for {@code mp.obs.<id>}. Those are
     * dropped, so no meter is per monitor; the tables' and the clients' totals stay.
     */
    @Produces
    @Singleton
    MeterFilter noMonitorTopics() {
        return MeterFilter.deny(Meters::perMonitor);
    }

    static boolean perMonitor(Meter.Id id) {
        return monitorTopic(id.getTag("topic"));
    }

    /** A Kafka metric's {@code topic} tag naming a monitor's log (null: a metric of no topic). */
    private static boolean monitorTopic(String topic) {
        return topic != null && Topics.isObs(topic);
    }

    /**
     * The client as Micrometer's binder sees it: its {@code metrics()} without those of a monitor's log (the filter
     * above would drop them anyway), and nothing else ({@code KafkaClientMetrics} calls nothing else). Micrometer
     * compares each of a client's metrics with every meter of the same name whenever the set changes, so a follower
     * or producer with a thousand monitors' logs cost its binder's thread minutes of CPU after each change
     * (docs/benchmarks.md, 2026-12-07); without them the set is the tables' and the totals', which barely changes.
     */
    static <T> T withoutMonitorTopics(Class<T> type, T client) {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(
                type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
                    if (method.getName().equals("metrics") && method.getParameterCount() == 0) {
                        @SuppressWarnings("unchecked")
                        Map<MetricName, ? extends Metric> all =
                                (Map<MetricName, ? extends Metric>) method.invoke(client);
                        return withoutMonitorTopics(all);
                    }
                    return switch (method.getName()) {
                        case "toString" -> "metrics of " + client;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default ->
                            throw new UnsupportedOperationException("only metrics() of this client is bound to meters");
                    };
                }));
    }

    static Map<MetricName, Metric> withoutMonitorTopics(Map<MetricName, ? extends Metric> metrics) {
        Map<MetricName, Metric> kept = new HashMap<>();
        metrics.forEach((name, metric) -> {
            if (!monitorTopic(name.tags().get("topic"))) {
                kept.put(name, metric);
            }
        });
        return kept;
    }

    /** Called by Lifecycle once the Kafka side and the hosted apps are started. */
    void bind(
            KafkaStreams leases,
            io.monitorbackbone.projector.Projector projector,
            io.monitorbackbone.bridge.BridgeApp bridge,
            Sweeper sweeper) {
        Gauge.builder("mp.build.info", () -> 1)
                .description("This server's version")
                .tag("version", version)
                .strongReference(true)
                .register(registry);
        Gauge.builder("mp.subscriptions.active", this, Meters::activeSubscriptions)
                .description("Subscriptions not retired, on monitors not retired")
                .register(registry);
        Follower follower = kafka.follower();
        if (follower != null) {
            Gauge.builder("mp.follower.lag", follower, Follower::lag)
                    .baseUnit("records")
                    .description("Records this gateway's follower is behind the tables and logs it follows")
                    .register(registry);
            Gauge.builder("mp.follower.logs", follower, Follower::logs)
                    .description("Monitors' logs this gateway's follower reads now: those its readers needed lately")
                    .register(registry);
        }
        if (bridge != null) {
            // Totals of this process's bridges, not per monitor: any creator of a monitor could add a label value.
            for (String outcome : io.monitorbackbone.bridge.BridgeApp.OUTCOMES) {
                io.micrometer.core.instrument.FunctionCounter.builder(
                                "mp.bridge.records", bridge, b -> b.total(outcome))
                        .description("Source records the bridges of this process have written, by outcome")
                        .tag("outcome", outcome)
                        .register(registry);
            }
            Gauge.builder("mp.bridge.lag", bridge, io.monitorbackbone.bridge.BridgeApp::lag)
                    .baseUnit("records")
                    .description(
                            "Source records the bridges of this process have yet to read, as of their last fetches")
                    .register(registry);
            Gauge.builder("mp.bridge.monitors", bridge, b -> b.counts().size())
                    .description("Monitors this process bridges")
                    .register(registry);
        }
        KafkaRuntime runtime = kafka.runtime();
        for (Producer<String, byte[]> producer : runtime.logProducers()) {
            bindClient(new KafkaClientMetrics(withoutMonitorTopics(Producer.class, producer)));
        }
        if (follower != null) {
            // What this gateway fetches of the tables and of the logs its readers need.
            bindClient(new KafkaClientMetrics(withoutMonitorTopics(Consumer.class, follower.meteredConsumer())));
        }
        if (runtime.admin() instanceof org.apache.kafka.clients.admin.AdminClient admin) {
            bindClient(new KafkaClientMetrics(admin));
        }
        // The consumers that wait in Kafka for what is new: their fetch rates show what an idle gateway costs its
        // broker.
        if (kafka.leaseClient() != null) {
            bindClient(new KafkaClientMetrics(
                    withoutMonitorTopics(Consumer.class, kafka.leaseClient().consumerForMetrics())));
        }
        if (sweeper != null) {
            bindClient(new KafkaClientMetrics(withoutMonitorTopics(Consumer.class, sweeper.consumerForMetrics())));
        }
        if (bridge != null) {
            bindClient(new KafkaClientMetrics(withoutMonitorTopics(Consumer.class, bridge.meteredTableConsumer())));
        }
        if (leases != null) {
            bindClient(new KafkaStreamsMetrics(leases, List.of(), streamsMetrics));
        }
        if (projector != null) {
            // Its consumers read every monitor's log: the view leaves out their per-log metrics, as for the follower.
            bindClient(new KafkaClientMetrics(withoutMonitorTopics(Producer.class, projector.producerForMetrics())));
            for (Consumer<byte[], byte[]> c : projector.consumersForMetrics()) {
                bindClient(new KafkaClientMetrics(withoutMonitorTopics(Consumer.class, c)));
            }
            io.micrometer.core.instrument.FunctionCounter.builder(
                            "mp.projector.polls", projector, io.monitorbackbone.projector.Projector::polls)
                    .description("Polls of the projector's fold loops: an idle loop polls once a second")
                    .register(registry);
            io.micrometer.core.instrument.FunctionCounter.builder(
                            "mp.projector.records", projector, io.monitorbackbone.projector.Projector::folded)
                    .description("Records of the monitors' logs the projector here has folded")
                    .register(registry);
        }
    }

    private <B extends io.micrometer.core.instrument.binder.MeterBinder & AutoCloseable> void bindClient(B binder) {
        binder.bindTo(registry);
        binders.add(binder);
    }

    private double activeSubscriptions() {
        long active = 0;
        for (Monitor monitor : tables.monitors()) {
            if (monitor.retired()) {
                continue;
            }
            for (Subscription s : tables.subscriptionsOf(monitor.id())) {
                if (s.active()) {
                    active++;
                }
            }
        }
        return active;
    }

    /** Before the Streams apps close: their metrics are unbound and no refresh is still reading them when this returns. */
    void close() {
        for (AutoCloseable binder : binders) {
            try {
                binder.close();
            } catch (Exception e) {
                // a metrics scheduler that fails to stop holds nothing of the server's
            }
        }
        binders.clear();
        streamsMetrics.shutdownNow();
        try {
            if (!streamsMetrics.awaitTermination(REFRESH_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                org.jboss.logging.Logger.getLogger(Meters.class)
                        .warnf("a Streams metrics refresh was still running after %s; stopping anyway", REFRESH_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The scheduler the Streams apps' metrics binders refresh on (for the test of {@link #close}). */
    ScheduledExecutorService streamsMetricsScheduler() {
        return streamsMetrics;
    }
}
