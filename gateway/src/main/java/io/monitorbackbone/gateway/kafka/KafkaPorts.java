package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.GatewayConfig;
import io.monitorbackbone.gateway.service.BridgeOffsets;
import io.monitorbackbone.gateway.service.LeaseDecisions;
import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.gateway.service.LogAdmin;
import io.monitorbackbone.gateway.service.StateChanges;
import io.monitorbackbone.gateway.service.Tables;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka side of this process, started in steps by {@code Lifecycle} and exposed to the services as their ports
 * ({@link Tables}, {@link Log}, {@link LogAdmin}, {@link BridgeOffsets}, {@link LeaseDecisions}, {@link StateChanges}). The HTTP listener
 * opens only once every start-up observer has returned, so no request reaches a port before its part is started; a
 * port used before that is a wiring mistake and fails loudly.
 */
@ApplicationScoped
public class KafkaPorts {
    /** Consumers in the log reader's pool: reads running at once. */
    private static final int READERS = 8;
    /** A create's transaction is open for milliseconds; one open this long at start-up has lost its gateway. */
    private static final long ABANDONED_CREATE_MS = 5_000;
    /** How often every gateway looks for cursors whose last record is below their merge (see {@link CursorWrites}). */
    private static final long CURSOR_REPAIR_MS = 2_000;

    private static final org.jboss.logging.Logger LOGGER = org.jboss.logging.Logger.getLogger(KafkaPorts.class);

    private volatile KafkaRuntime runtime;
    private volatile Catalog catalog;
    private volatile Follower follower;
    private volatile ReaderPool readers;
    private volatile LogReader reader;
    private volatile LogFold fold;
    private volatile LogWriter writer;
    private volatile LeaseClient leaseClient;
    private volatile CursorWrites cursorWrites;
    private volatile java.util.concurrent.ScheduledExecutorService cursorRepair;

    /**
     * The broker (embedded unless a cluster is configured) and the shared clients; the durability settings checked
     * against the cluster ({@link KafkaRuntime#checkDurability}), the tables created where missing and creates cut short
     * by a crash fenced.
     *
     * @param env where {@code MP_KAFKA_*} client properties are passed through from
     */
    public KafkaRuntime startBroker(GatewayConfig config, Map<String, String> env) {
        KafkaRuntime started = KafkaRuntime.start(config, env);
        try {
            started.checkDurability();
            started.ensureTables(Follower.tables());
            started.ensureTables(List.of(Topics.SWEEPER));
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
        runtime = started;
        // A create this process's broker saw open died with it; with a cluster, another gateway may be mid-create.
        runtime.fenceAbandonedCreates(runtime.embedded() ? 0 : ABANDONED_CREATE_MS);
        return runtime;
    }

    /** The follower, caught up with the tables; the log reader and writer over it. */
    public void follow(int tailCacheEntries, Duration followIdle) throws Exception {
        KafkaRuntime cluster = started(runtime);
        Catalog view = new Catalog(tailCacheEntries);
        Follower tail = new Follower(cluster.newFollowerConsumer("mp-follower"), view, followIdle);
        follower = tail;
        try {
            tail.start().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof io.monitorbackbone.binding.Durability.Refused refused) {
                throw refused;
            }
            throw e;
        }
        ReaderPool pool = new ReaderPool(cluster::newReaderConsumer, READERS);
        readers = pool;
        view.barrier(
                table -> tail.awaitApplied(table, pool.endOffsets(tail.partitionsOf(table)), Duration.ofSeconds(10)));
        fold = new LogFold(readers);
        reader = new LogReader(readers, view::log, (monitorId, endOffset) -> {
            MonitorLog followed = view.log(monitorId);
            if (!followed.followed()) {
                // No reader of this gateway needs the log: the reader finds its last record itself, nothing is
                // followed.
                return null;
            }
            TopicPartition log = new TopicPartition(Topics.obs(monitorId), 0);
            try (var hold = followed.hold()) {
                tail.awaitApplied(log.topic(), Map.of(log, endOffset), Duration.ofSeconds(10));
            }
            return followed.lastSeq();
        });
        writer = new LogWriter(cluster.logProducers());
        CursorWrites cursors = new CursorWrites(
                view,
                writer,
                (partition, offset) ->
                        tail.awaitApplied(partition.topic(), Map.of(partition, offset), Duration.ofSeconds(10)));
        cursorWrites = cursors;
        cursorRepair = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "mp-cursor-repair");
            t.setDaemon(true);
            return t;
        });
        // Two looks CURSOR_REPAIR_MS apart: a writer that is alive checks its own write long before the second.
        cursorRepair.scheduleWithFixedDelay(
                () -> {
                    try {
                        cursors.repairUncarried();
                    } catch (RuntimeException e) {
                        LOGGER.warnf("cursor repair failed, retried in %d ms: %s", CURSOR_REPAIR_MS, e.toString());
                    }
                },
                CURSOR_REPAIR_MS,
                CURSOR_REPAIR_MS,
                TimeUnit.MILLISECONDS);
        catalog = view;
    }

    /**
     * The client of the leases service, reading its replies; start it once a hosted leases app runs. The service may run
     * in other processes only (MP_ROLES), so the lease topics are created here where missing: the client needs the
     * reply topic's partitions, and its commands wait in their topic for a leases instance to start.
     */
    public void startLeaseClient() throws Exception {
        started(runtime).ensureLeaseTopics();
        LeaseClient client = new LeaseClient(
                started(runtime).newLeaseReplyConsumer("mp-lease-replies"),
                runtime.producer(),
                Topics.LEASE_COMMANDS,
                Topics.LEASE_REPLIES);
        leaseClient = client;
        client.start().get(60, TimeUnit.SECONDS);
    }

    /** This gateway's tail; null before {@link #follow}. */
    public Follower follower() {
        return follower;
    }

    /** This gateway's client of the leases service; null before {@link #startLeaseClient}. */
    public LeaseClient leaseClient() {
        return leaseClient;
    }

    /** The broker and clients; null before {@link #startBroker}. */
    public KafkaRuntime runtime() {
        return runtime;
    }

    @Produces
    @ApplicationScoped
    Tables tables() {
        return new KafkaTables(started(catalog), writer, cursorWrites);
    }

    @Produces
    @ApplicationScoped
    Log log() {
        return new KafkaLog(started(reader), fold, writer);
    }

    @Produces
    @ApplicationScoped
    LogAdmin logAdmin() {
        return new KafkaLogAdmin(started(runtime));
    }

    @Produces
    @ApplicationScoped
    BridgeOffsets bridgeOffsets() {
        return new KafkaBridgeOffsets(started(runtime));
    }

    @Produces
    @ApplicationScoped
    LeaseDecisions leaseDecisions() {
        return started(leaseClient);
    }

    @Produces
    @ApplicationScoped
    StateChanges stateChanges() {
        return new LogStateChanges(started(catalog));
    }

    /** Stops the clients, then the broker last, so it outlives every one of them. */
    public void close() {
        if (cursorRepair != null) {
            cursorRepair.shutdownNow();
        }
        if (leaseClient != null) {
            leaseClient.close();
        }
        if (follower != null) {
            follower.close();
        }
        if (readers != null) {
            readers.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    private static <T> T started(T part) {
        if (part == null) {
            throw new IllegalStateException("a port of the Kafka side was used before Lifecycle started it");
        }
        return part;
    }
}
