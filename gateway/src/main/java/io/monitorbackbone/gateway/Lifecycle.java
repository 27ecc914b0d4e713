package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.kafka.Catalog;
import io.monitorbackbone.gateway.kafka.Follower;
import io.monitorbackbone.gateway.kafka.LeaseClient;
import io.monitorbackbone.gateway.kafka.KafkaRuntime;
import io.monitorbackbone.gateway.kafka.LogReader;
import io.monitorbackbone.gateway.kafka.LogWriter;
import io.monitorbackbone.gateway.service.MonitorService;
import io.monitorbackbone.gateway.service.PublishService;
import io.monitorbackbone.gateway.service.AdminService;
import io.monitorbackbone.gateway.service.DeliveryService;
import io.monitorbackbone.gateway.service.LeaseService;
import io.monitorbackbone.gateway.service.Services;
import io.monitorbackbone.gateway.service.SubscriptionService;
import io.monitorbackbone.gateway.service.Parking;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Starts the process's parts in order (ports checked, broker if embedded, tables, follower caught up, services) and
 * stops them in reverse, so the broker outlives every client. Requests that arrive before the services are ready wait
 * for them. The ready line is logged once the HTTP port is bound. When the process stops, parked long-polls are
 * answered and SSE streams ended at once, before the HTTP server waits for what is in flight.
 */
@ApplicationScoped
public class Lifecycle {
    private static final Logger LOGGER = Logger.getLogger(Lifecycle.class);
    private static final int READERS = 8;
    /** A create's transaction is open for milliseconds; one open this long at start-up has lost its gateway. */
    private static final long ABANDONED_CREATE_MS = 5_000;

    @Inject
    GatewayConfig config;

    @ConfigProperty(name = "quarkus.http.host")
    String host;

    @ConfigProperty(name = "quarkus.http.port")
    int port;

    private final CompletableFuture<Services> ready = new CompletableFuture<>();
    private final Parking parking = new Parking();
    private final java.util.concurrent.atomic.AtomicBoolean announced = new java.util.concurrent.atomic.AtomicBoolean();
    private KafkaRuntime kafka;
    private Follower follower;
    private Sweeper sweeper;
    private org.apache.kafka.streams.KafkaStreams leases;
    private org.apache.kafka.streams.KafkaStreams projector;
    private LeaseClient leaseClient;
    private io.monitorbackbone.gateway.kafka.ReaderPool readers;
    private Executor work;
    private volatile io.monitorbackbone.gateway.service.StateChanges stateChanges;

    void start(@Observes StartupEvent event) throws Exception {
        StartChecks.portsFree(host, port, config.kafka().bootstrapServers().isEmpty(), config.kafka().port());
        StartChecks.kafkaClientProperties(System.getenv());
        kafka = KafkaRuntime.start(config, System.getenv());
        kafka.ensureTables(Follower.tables());
        kafka.ensureTables(java.util.List.of(io.monitorbackbone.binding.Topics.SWEEPER));
        // A create this process's broker saw open died with it; with a cluster, another gateway may be mid-create.
        kafka.fenceAbandonedCreates(kafka.embedded() ? 0 : ABANDONED_CREATE_MS);
        // Creates the lease topics it is missing (mp.leases, which the follower reads, exists already as a table).
        leases = io.monitorbackbone.leases.LeaseApp.create(new io.monitorbackbone.leases.LeaseApp.Settings(
                kafka.clients(), config.data().resolve("streams").resolve("leases-" + port).toAbsolutePath(),
                // Static membership: a restarted gateway takes its lease tasks back without waiting out a session.
                "gateway-" + port, config.kafka().leasePartitions(), config.kafka().replicationFactor(),
                config.kafka().leaseCommitMs()));
        if (config.hostProjector()) {
            // Folds every monitor's log into mp.state (created above with the tables), which the follower reads.
            projector = io.monitorbackbone.projector.ProjectorApp.create(io.monitorbackbone.projector.ProjectorConfig.hosted(
                    kafka.clients(), config.data().resolve("streams").resolve("projector-" + port).toAbsolutePath().toString(),
                    "gateway-" + port, config.kafka().projectorPartitions(), config.kafka().replicationFactor()));
            projector.setUncaughtExceptionHandler(e -> {
                LOGGER.error("projector thread failed; replacing it", e);
                return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
            });
            projector.start();
        }
        Catalog catalog = new Catalog(config.tailCacheEntries());
        follower = new Follower(kafka.newFollowerConsumer("mp-follower"), catalog);
        follower.start().get(60, TimeUnit.SECONDS);
        Follower tail = follower;
        KafkaRuntime cluster = kafka;
        catalog.barrier(table -> tail.awaitApplied(table, cluster.endOffsets(tail.partitionsOf(table)), java.time.Duration.ofSeconds(10)));
        readers = new io.monitorbackbone.gateway.kafka.ReaderPool(kafka::newReaderConsumer, READERS);
        LogReader reader = new LogReader(readers, catalog::log, (monitorId, endOffset) -> {
            org.apache.kafka.common.TopicPartition log = new org.apache.kafka.common.TopicPartition(
                    io.monitorbackbone.binding.Topics.obs(monitorId), 0);
            tail.awaitApplied(log.topic(), java.util.Map.of(log, endOffset), java.time.Duration.ofSeconds(10));
            return catalog.log(monitorId).lastSeq();
        });
        LogWriter writer = new LogWriter(kafka.producer());
        // Quarkus's worker pool, which the REST resources' blocking calls run on too: no pool of the gateway's own.
        work = io.smallrye.mutiny.infrastructure.Infrastructure.getDefaultWorkerPool();
        Clock clock = Clock.systemUTC();
        SubscriptionService subscriptions = new SubscriptionService(catalog, reader, writer, clock);
        leases.start();
        leaseClient = new LeaseClient(kafka.newConsumer("mp-lease-replies", 10), kafka.producer(),
                io.monitorbackbone.binding.Topics.LEASE_COMMANDS, io.monitorbackbone.binding.Topics.LEASE_REPLIES);
        leaseClient.start().get(60, TimeUnit.SECONDS);
        sweeper = new Sweeper(kafka.newGroupConsumer("mp-sweeper", Sweeper.GROUP), catalog, subscriptions, clock);
        sweeper.start();
        LeaseService leaseService = new LeaseService(catalog, reader, leaseClient);
        subscriptions.onRetired((s, reason) -> leaseService.releaseHeldBy(catalog.monitor(s.monitor()), java.util.List.of(s), reason));
        MonitorService monitors = new MonitorService(kafka, catalog, reader,
                new io.monitorbackbone.gateway.kafka.LogFold(readers), writer, config.registrationToken(), clock);
        monitors.onRetired(m -> leaseService.releaseHeldBy(m, catalog.subscriptionsOf(m.id()), "monitor retired"));
        stateChanges = new io.monitorbackbone.gateway.kafka.LogStateChanges(catalog);
        ready.complete(new Services(
                monitors,
                new PublishService(catalog, writer, clock),
                subscriptions,
                new DeliveryService(catalog, reader, writer, work, clock, parking),
                new AdminService(config.adminToken(), kafka, catalog, reader),
                leaseService));
    }

    /**
     * Only now does the port answer (Quarkus fires this asynchronously once the listener is bound); a port that could
     * not be bound has ended the start before this.
     */
    void listening(@ObservesAsync HttpServerStart event) {
        if (!announced.compareAndSet(false, true)) {
            return;
        }
        LOGGER.infof("monitor-backbone ready on http://%s:%d/mp/v0/discover, MCP at http://%s:%d/mcp (Kafka %s%s)", host, port, host, port,
                kafka.bootstrapServers(), kafka.embedded() ? ", embedded, data in " + config.data().toAbsolutePath().normalize() : "");
    }

    /**
     * The first thing a stop does (SIGINT, SIGTERM), before the HTTP server waits up to quarkus.shutdown.timeout for the
     * requests in flight: wake every parked pull and stream so that they are answered now, not when their wait ends.
     */
    void stopping(@Observes ShutdownDelayInitiatedEvent event) {
        parking.stop();
    }

    void stop(@Observes ShutdownEvent event) {
        parking.stop();
        if (sweeper != null) {
            sweeper.close();
        }
        if (leases != null) {
            // A static member that stops without leaving keeps its tasks until its session ends; a clean stop leaves.
            leases.close(new org.apache.kafka.streams.KafkaStreams.CloseOptions().leaveGroup(true).timeout(java.time.Duration.ofSeconds(10)));
        }
        if (projector != null) {
            projector.close(new org.apache.kafka.streams.KafkaStreams.CloseOptions().leaveGroup(true).timeout(java.time.Duration.ofSeconds(10)));
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
        if (kafka != null) {
            kafka.close();
            LOGGER.info("monitor-backbone stopped");
        }
    }

    public CompletableFuture<Services> ready() {
        return ready;
    }

    /** Quarkus's worker pool, for the bindings that hand service calls to an Executor (MCP). */
    public Executor work() {
        return work;
    }

    /** Set before {@link #ready()} completes. */
    public io.monitorbackbone.gateway.service.StateChanges stateChanges() {
        return stateChanges;
    }
}
