package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.kafka.KafkaPorts;
import io.monitorbackbone.gateway.kafka.KafkaRuntime;
import io.monitorbackbone.gateway.service.Parking;
import io.monitorbackbone.gateway.service.SubscriptionService;
import io.monitorbackbone.gateway.service.Tables;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServerStart;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Starts the process's parts in order (roles and instance id read, ports checked, broker, tables, the Streams apps of
 * its roles, then for the gateway role the follower caught up, lease client, sweeper) and stops them in reverse, so
 * the broker outlives every client. The services are beans over the ports {@link KafkaPorts} exposes; nothing here wires them. Quarkus opens the HTTP listener only after every
 * {@link StartupEvent} observer has returned (in 3.33 the socket's build step consumes the start-up event's), so no
 * request arrives before the Kafka side is ready, and a start that fails never opens the port. The ready line is
 * logged once the port is bound. When the process stops, parked long-polls are answered and SSE streams ended at once,
 * before the HTTP server waits for what is in flight.
 */
@ApplicationScoped
public class Lifecycle {
    private static final Logger LOGGER = Logger.getLogger(Lifecycle.class);
    private static final Duration STREAMS_CLOSE = Duration.ofSeconds(10);

    @Inject
    GatewayConfig config;

    @ConfigProperty(name = "quarkus.http.host")
    String host;

    @ConfigProperty(name = "quarkus.http.port")
    int port;

    @ConfigProperty(name = "quarkus.management.host")
    String managementHost;

    @ConfigProperty(name = "quarkus.management.port")
    int managementPort;

    @Inject
    KafkaPorts kafka;

    @Inject
    Tables tables;

    @Inject
    SubscriptionService subscriptions;

    @Inject
    Parking parking;

    @Inject
    io.monitorbackbone.gateway.service.PushService push;

    @Inject
    Clock clock;

    @Inject
    Meters meters;

    private final AtomicBoolean announced = new AtomicBoolean();
    private final AtomicBoolean fenced = new AtomicBoolean();
    private volatile boolean ready;
    private volatile boolean stopping;
    private final AtomicBoolean leasesRan = new AtomicBoolean();
    private final AtomicBoolean projectorRan = new AtomicBoolean();
    private Sweeper sweeper;
    private Pusher pusher;
    private KafkaStreams leases;
    private io.monitorbackbone.projector.Projector projector;
    private io.monitorbackbone.bridge.BridgeApp bridge;
    private volatile Roles roles;
    private volatile String instanceId;

    void start(@Observes StartupEvent event) throws Exception {
        roles = StartChecks.roles(config.roles(), System.getenv());
        instanceId = StartChecks.instanceId(config.instanceId(), port);
        boolean gateway = roles.has(Roles.Role.GATEWAY);
        // Without the gateway role no HTTP port is bound (RolesConfigSource), so none needs to be free.
        StartChecks.portsFree(
                host,
                gateway ? port : 0,
                config.kafka().bootstrapServers().isEmpty(),
                config.kafka().port());
        StartChecks.managementPortFree(managementHost, managementPort);
        StartChecks.kafkaClientProperties(System.getenv());
        StartChecks.logProducers(config.kafka().logProducers());
        io.monitorbackbone.binding.Durability durability = StartChecks.durability(config.kafka());
        // Every role's topics are created with these settings: the cluster is asked once, before any is created.
        KafkaRuntime runtime = StartChecks.onTheCluster(() -> kafka.startBroker(config, System.getenv()));
        Path streams = config.data().resolve("streams");
        if (roles.has(Roles.Role.LEASES)) {
            // Creates the lease topics it is missing (mp.leases, which the follower reads, exists already as a table).
            leases = io.monitorbackbone.leases.LeaseApp.create(new io.monitorbackbone.leases.LeaseApp.Settings(
                    runtime.clients(),
                    streams.resolve("leases-" + instanceId).toAbsolutePath(),
                    // Static membership: a restarted process takes its lease tasks back without waiting out a session.
                    instanceId,
                    config.kafka().leasePartitions(),
                    durability,
                    config.kafka().leaseCommitMs()));
        }
        if (roles.has(Roles.Role.PROJECTOR)) {
            // Folds every monitor's log into mp.state (created above with the tables), which the follower reads.
            projector =
                    io.monitorbackbone.projector.Projector.create(io.monitorbackbone.projector.ProjectorConfig.hosted(
                            runtime.clients(), instanceId, config.kafka().projectorPartitions(), durability));
            projector.onFailure(e -> onThreadFailure(io.monitorbackbone.projector.ProjectorConfig.GROUP_ID, e)
                    == StreamThreadExceptionResponse.REPLACE_THREAD);
            if (!gateway) {
                projector.onRunning(() -> workerAppState(KafkaStreams.State.RUNNING, projectorRan));
            }
            projector.start();
        }
        if (gateway) {
            // A table whose partitions were raised under its records refuses the start, as one line.
            StartChecks.onTheCluster(() -> {
                try {
                    kafka.follow(config.tailCacheEntries(), config.followIdle());
                    return null;
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException("the follower did not start: " + e, e);
                }
            });
        }
        if (leases != null) {
            leases.setUncaughtExceptionHandler(
                    e -> onThreadFailure(io.monitorbackbone.leases.LeaseApp.APPLICATION_ID, e));
            if (!gateway) {
                leases.setStateListener((now, before) -> workerAppState(now, leasesRan));
            }
            leases.start();
        }
        if (roles.has(Roles.Role.BRIDGE)) {
            // Follows mp.monitors and bridges every active monitor whose source is a Kafka topic (docs/adr/0015).
            bridge = io.monitorbackbone.bridge.BridgeApp.create(
                    new io.monitorbackbone.bridge.BridgeApp.Settings(runtime.clients(), runtime.layout(), instanceId));
            bridge.start();
        }
        if (gateway) {
            // The leases service may run in other processes: the lease topics are made sure of here too.
            kafka.startLeaseClient();
            // Webhook push runs where the sweep runs: the sweeper's election hands both out (docs/adr/0016).
            pusher = new Pusher(tables, push);
            pusher.start();
            sweeper = new Sweeper(
                    runtime.newGroupConsumer("mp-sweeper", Sweeper.GROUP), tables, subscriptions, clock, pusher);
            sweeper.start();
        }
        meters.bind(leases, projector, bridge, sweeper);
        ready = true;
        if (!gateway) {
            announceWorker();
        }
    }

    /**
     * A process without the gateway role has no listener, so no HttpServerStart: its ready line is logged once every
     * Streams app it hosts has reached RUNNING for the first time, which is when a lease command sent to it is decided
     * and a log record folded (logged at the start, the line let a client's first lease call time out while the
     * leases instance was still joining its group on a busy machine).
     */
    private void workerAppState(KafkaStreams.State now, AtomicBoolean ran) {
        if (now == KafkaStreams.State.RUNNING) {
            ran.set(true);
            announceWorker();
        }
    }

    private void announceWorker() {
        if (!ready || (leases != null && !leasesRan.get()) || (projector != null && !projectorRan.get())) {
            return;
        }
        if (!announced.compareAndSet(false, true)) {
            return;
        }
        LOGGER.infof(
                "monitor-backbone ready: roles %s, instance %s, no HTTP API in this process (Kafka %s)",
                roles, instanceId, kafkaInUse());
    }

    /** The cluster the ready lines name: its bootstrap servers, and where the embedded broker keeps its data. */
    private String kafkaInUse() {
        KafkaRuntime runtime = kafka.runtime();
        return runtime.bootstrapServers()
                + (runtime.embedded()
                        ? ", embedded, data in "
                                + config.data().toAbsolutePath().normalize()
                        : "");
    }

    /**
     * A hosted Streams app's thread failed. Fenced by another process under this one's instance id: this process stops
     * ({@link #stopFenced}). Anything else gets a new thread, which rejoins the group under the same member id and takes
     * the tasks up from their committed offsets: a failure of the Kafka client inside a thread (one seen under load: a
     * lag lookup for a partition whose leader the consumer's metadata had just lost, a NullPointerException in the
     * client) must not leave the process serving on without its leases or its fold until someone restarts it, as
     * shutting the app down did for the leases.
     */
    StreamThreadExceptionResponse onThreadFailure(String app, Throwable e) {
        if (fencedInstance(e)) {
            return stopFenced(app);
        }
        LOGGER.errorf(e, "%s: a stream thread failed; replacing it", app);
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    /** Whether a Streams thread failed because another member joined its group under this process's instance id. */
    static boolean fencedInstance(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof FencedInstanceIdException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Another live process runs with this process's instance id and took its membership: a second member under one id
     * can only fence the other, so this process says so once and stops (exit status 1) rather than serve on without its
     * Streams instance. The process that joined last keeps running.
     */
    private StreamThreadExceptionResponse stopFenced(String group) {
        if (fenced.compareAndSet(false, true)) {
            LOGGER.errorf(
                    "monitor-backbone stops: another process joined the Kafka group %s with this process's %s '%s' and"
                            + " took its membership; give every process its own %s (the default is host name and HTTP port)",
                    group, InstanceId.VARIABLE, instanceId, InstanceId.VARIABLE);
            Quarkus.asyncExit(1);
        }
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /** Whether every part has started: true from before the HTTP port answers until the process stops. */
    public boolean ready() {
        return ready;
    }

    /** Whether a stop has begun: readiness is DOWN from its first moment. */
    public boolean stopping() {
        return stopping;
    }

    /** The hosted leases app's state; null before it is created. */
    public KafkaStreams.State leasesState() {
        return leases == null ? null : leases.state();
    }

    /** The hosted projector's state; null when this process hosts none (or before it is created). */
    public io.monitorbackbone.projector.Projector.State projectorState() {
        return projector == null ? null : projector.state();
    }

    public boolean hostsProjector() {
        return roles != null && roles.has(Roles.Role.PROJECTOR);
    }

    public boolean hostsLeases() {
        return roles != null && roles.has(Roles.Role.LEASES);
    }

    /** Whether this process serves the API (and so follows the tables). */
    public boolean hostsGateway() {
        return roles != null && roles.has(Roles.Role.GATEWAY);
    }

    /**
     * Only now does the port answer (Quarkus fires this asynchronously once the listener is bound); a port that could
     * not be bound has ended the start before this.
     */
    void listening(@ObservesAsync HttpServerStart event) {
        if (!announced.compareAndSet(false, true)) {
            return;
        }
        LOGGER.infof(
                "monitor-backbone ready on http://%s:%d/mp/v0/discover, MCP at http://%s:%d/mcp, health and metrics at"
                        + " http://%s:%d/q/health and /q/metrics (roles %s, instance %s, Kafka %s)",
                host, port, host, port, managementHost, managementPort, roles, instanceId, kafkaInUse());
    }

    /**
     * The first thing a stop does (SIGINT, SIGTERM), before the HTTP server waits up to quarkus.shutdown.timeout for the
     * requests in flight: readiness goes DOWN at once, so a load balancer stops sending new requests here; the server
     * keeps answering for {@code MP_SHUTDOWN_DELAY} (default none) while it notices; then every parked pull and stream
     * is woken, so that they are answered now, not when their wait ends.
     */
    void stopping(@Observes ShutdownDelayInitiatedEvent event) {
        stopping = true;
        Duration delay = config.shutdownDelay();
        if (!delay.isZero() && !delay.isNegative()) {
            LOGGER.infof("stopping: readiness is DOWN; still serving for %s (MP_SHUTDOWN_DELAY)", delay);
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        parking.stop();
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        ready = false;
        parking.stop();
        meters.close();
        if (sweeper != null) {
            // Leaving the group ends this gateway's pushes in flight first (Sweeper's revocation), then the pusher
            // stops.
            sweeper.close();
        }
        if (pusher != null) {
            pusher.close();
        }
        if (bridge != null) {
            // Each bridge ends the transaction in flight and leaves its group; its offsets stay committed.
            bridge.close();
        }
        if (leases != null) {
            // A static member that stops without leaving keeps its tasks until its session ends; a clean stop leaves.
            leases.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(STREAMS_CLOSE));
        }
        if (projector != null) {
            // Each fold loop writes what it changed and leaves the group.
            projector.close(STREAMS_CLOSE);
        }
        boolean started = kafka.runtime() != null;
        kafka.close();
        if (started) {
            LOGGER.info("monitor-backbone stopped");
        }
    }
}
