package io.monitorbackbone.bridge;

import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.request.KafkaSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bridge role (docs/adr/0015-bridge.md): follows {@code mp.monitors} and runs one {@link MonitorBridge} for every
 * active monitor whose source is a Kafka topic. A pause or retirement stops a monitor's bridge, a resume starts it where
 * it stopped, a changed source restarts it; every process with the role runs one, and the monitor's consumer group
 * spreads its source's partitions over them.
 */
public final class BridgeApp implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(BridgeApp.class);
    private static final Duration POLL = Duration.ofMillis(500);
    /**
     * How long the broker holds the table consumer's fetch when nothing is new. A record of {@code mp.monitors}
     * answers it at once, and the consumer reads the same partitions from start to close, so the wait costs a change
     * nothing; an idle process sends one fetch every five seconds instead of two a second (the client's 500 ms).
     */
    static final int TABLE_FETCH_MAX_WAIT_MS = 5_000;

    /**
     * @param clients    the cluster, and the client properties every role passes through ({@code MP_KAFKA_*})
     * @param layout     how the topics this role creates are laid out (the dead letters; the monitors table if missing)
     * @param instanceId this process's {@code MP_INSTANCE_ID}: it names the bridge's transactional ids, so a restarted
     *                   process aborts what its predecessor left open at once
     */
    public record Settings(KafkaClients clients, TopicLayout layout, String instanceId) {}

    /**
     * The prefix of every bridged monitor's consumer group, {@code mp-bridge.<monitor id>}: the deployment's ACLs grant
     * Read on groups by this prefix (deploy/k8s/user.yaml).
     */
    public static final String GROUP_PREFIX = "mp-bridge.";

    /**
     * The prefix of every bridge producer's transactional id, {@code mp-bridge.<monitor id>.<instance id>}: the
     * deployment's ACLs grant Write on transactional ids by this prefix.
     */
    public static final String TRANSACTIONAL_ID_PREFIX = "mp-bridge.";

    /** The outcomes {@link #total} counts: observations, rejected rows, dead letters. */
    public static final List<String> OUTCOMES = List.of("bridged", "rejected", "dead_lettered");

    private final Settings settings;
    private final Clock clock;
    /** Records written in committed transactions by every bridge this process has run, by outcome. */
    final java.util.concurrent.atomic.AtomicLong bridged = new java.util.concurrent.atomic.AtomicLong();

    final java.util.concurrent.atomic.AtomicLong rejected = new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong deadLettered = new java.util.concurrent.atomic.AtomicLong();
    private final Map<String, MonitorBridge> bridges = new ConcurrentHashMap<>();
    /** Bridges told to stop by the definitions of the current poll, not yet waited for (under this object's lock). */
    private final Map<String, MonitorBridge> stopping = new HashMap<>();

    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean caughtUp;
    /** {@code mp.monitors}, read on the role's thread only; created with the role, so its meters can be bound. */
    private final KafkaConsumer<byte[], byte[]> table;
    /** Asks the cluster whether each bridged monitor's source topic is there (shared by every bridge here). */
    private final Admin admin;

    private BridgeApp(Settings settings, Clock clock, Admin admin) {
        this.settings = settings;
        this.clock = clock;
        this.admin = admin;
        this.table = tableConsumer(settings);
        this.thread = new Thread(this::follow, "mp-bridge-monitors");
        this.thread.setDaemon(true);
    }

    /** Creates the topics the role writes if they are missing; not yet started. */
    public static BridgeApp create(Settings settings) {
        Admin admin =
                Admin.create(settings.clients().properties("mp-bridge-" + settings.instanceId() + "-admin", Map.of()));
        try {
            TopicLayout.createMissing(
                    admin,
                    List.of(
                            settings.layout().table(Topics.MONITORS),
                            settings.layout().bridgeDeadLetters()),
                    Duration.ofSeconds(60));
            return new BridgeApp(settings, Clock.systemUTC(), admin);
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    /**
     * Why a source topic cannot be bridged, as the cluster says it now, or null when it is there: the topic does not
     * exist (never created, or deleted), or this process may not see it. Any other failure (a broker that does not
     * answer) is thrown: it says nothing about the source.
     */
    String sourceProblem(String topic) {
        try {
            admin.describeTopics(List.of(topic)).allTopicNames().get(15, java.util.concurrent.TimeUnit.SECONDS);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return "the topic does not exist";
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TopicAuthorizationException) {
                return "the bridge is not authorized to describe the topic";
            }
            throw new IllegalStateException("cannot describe kafka:" + topic + ": " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot describe kafka:" + topic + ": no answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing kafka:" + topic, e);
        }
    }

    public void start() {
        thread.start();
    }

    /** Whether the monitors table has been read up to where it ended at start, and the bridges it asks for started. */
    public boolean caughtUp() {
        return caughtUp;
    }

    /** Monitor id to {@code {bridged, rejected, dead_lettered}} of the bridges running here, since they started. */
    public Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        bridges.forEach((id, b) -> out.put(
                id,
                Map.of(
                        "bridged", b.bridged.get(),
                        "rejected", b.rejected.get(),
                        "dead_lettered", b.deadLettered.get())));
        return out;
    }

    /** Records of one {@link #OUTCOMES} outcome this process's bridges have written since it started. */
    public long total(String outcome) {
        return switch (outcome) {
            case "bridged" -> bridged.get();
            case "rejected" -> rejected.get();
            case "dead_lettered" -> deadLettered.get();
            default -> throw new IllegalArgumentException(outcome);
        };
    }

    /** Source records the running bridges have yet to read, as of their last fetches. */
    public long lag() {
        return bridges.values().stream().mapToLong(b -> b.lag.get()).sum();
    }

    private void follow() {
        Map<String, Monitor> latest = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = table) {
            List<TopicPartition> partitions = c.partitionsFor(Topics.MONITORS).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = c.endOffsets(partitions);
            while (running && !reached(c, ends)) {
                c.poll(POLL).forEach(r -> read(r, latest));
            }
            latest.values().forEach(this::reconcile);
            awaitStopping();
            caughtUp = true;
            LOGGER.info("bridge: started, {} bridged monitor(s) here", bridges.size());
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
                    Monitor m = read(r, latest);
                    if (m != null) {
                        reconcile(m);
                    }
                }
                awaitStopping();
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            if (running) {
                LOGGER.error("bridge: cannot follow {}; no monitor is bridged by this process", Topics.MONITORS, e);
            }
        }
    }

    /**
     * The consumer of {@code mp.monitors}, for its client meters only ({@code KafkaClientMetrics} reads
     * {@code metrics()}, which is safe from any thread); nothing else may touch it off the role's thread.
     */
    public org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> meteredTableConsumer() {
        return table;
    }

    private static boolean reached(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream().allMatch(e -> c.position(e.getKey()) >= e.getValue());
    }

    private static Monitor read(ConsumerRecord<byte[], byte[]> r, Map<String, Monitor> latest) {
        if (r.value() == null) {
            return null;
        }
        try {
            Monitor m = Json.MAPPER.readValue(r.value(), Monitor.class);
            latest.put(m.id(), m);
            return m;
        } catch (IOException e) {
            LOGGER.warn(
                    "bridge: skipping an unreadable definition of {} in {}",
                    r.key() == null ? "?" : new String(r.key(), StandardCharsets.UTF_8),
                    Topics.MONITORS);
            return null;
        }
    }

    /** Starts, stops, restarts or updates the bridge of one monitor to match its definition. */
    private synchronized void reconcile(Monitor m) {
        KafkaSource wanted = m.active() ? KafkaSource.of(m.source(), m.types() == null ? List.of() : m.types()) : null;
        MonitorBridge running = bridges.get(m.id());
        if (running != null && wanted != null && running.source().equals(wanted)) {
            running.monitor(m);
            return;
        }
        if (running != null) {
            bridges.remove(m.id());
            // Told now, waited for after the poll's other definitions: sixteen monitors paused together stop
            // together, each after its transaction in flight, rather than one after another (a second or more).
            running.stopSoon();
            stopping.put(m.id(), running);
        }
        if (wanted != null && this.running) {
            // The same transactional id: the bridge it replaces must have ended its transaction first.
            MonitorBridge previous = stopping.remove(m.id());
            if (previous != null) {
                previous.awaitStopped();
            }
            MonitorBridge started = new MonitorBridge(settings, m, wanted, clock, this);
            bridges.put(m.id(), started);
            started.start();
        }
    }

    /** Waits for every bridge told to stop by the definitions just read. */
    private synchronized void awaitStopping() {
        stopping.values().forEach(MonitorBridge::awaitStopped);
        stopping.clear();
    }

    private static KafkaConsumer<byte[], byte[]> tableConsumer(Settings settings) {
        return new KafkaConsumer<>(
                tableConsumerProperties(settings), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static Map<String, Object> tableConsumerProperties(Settings settings) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, TABLE_FETCH_MAX_WAIT_MS);
        return settings.clients().properties("mp-bridge-" + settings.instanceId() + "-monitors", c);
    }

    @Override
    public void close() {
        running = false;
        if (thread.isAlive()) {
            // Only while the thread runs: once it ends it has closed the consumer.
            table.wakeup();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (thread.getState() == Thread.State.NEW) {
            // Never started: the thread that would have closed the consumer never ran.
            table.close(Duration.ZERO);
        }
        synchronized (this) {
            bridges.values().forEach(MonitorBridge::stopSoon);
            bridges.values().forEach(MonitorBridge::awaitStopped);
            bridges.clear();
            awaitStopping();
        }
        admin.close(Duration.ofSeconds(5));
    }
}
