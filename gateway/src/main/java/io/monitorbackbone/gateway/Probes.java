package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.kafka.Follower;
import io.monitorbackbone.gateway.kafka.KafkaPorts;
import io.monitorbackbone.gateway.kafka.KafkaRuntime;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.eclipse.microprofile.health.Startup;

/**
 * The health checks served on the management interface ({@code /q/health/live}, {@code /ready}, {@code /started}).
 * Readiness says whether this gateway should be sent requests: started and not stopping, the Kafka cluster answering,
 * the follower caught up with the tables, and the hosted Streams apps RUNNING or REBALANCING. A rebalance is a normal,
 * short moment of every join and leave (another gateway starting is one): counting it as not ready would take every
 * gateway out of a load balancer at once on each rolling restart, while requests are still answered (a lease claim
 * waits for its decision a little longer). CREATED, PENDING_SHUTDOWN, NOT_RUNNING, PENDING_ERROR and ERROR are not
 * ready. Liveness is the process answering at all; it does not look at Kafka, since a restart cannot fix a cluster.
 */
@ApplicationScoped
public class Probes {
    /** Where the management interface serves liveness (Quarkus's path for {@link Liveness} checks). */
    public static final String LIVE_PATH = "/q/health/live";
    /** Where it serves readiness. */
    public static final String READY_PATH = "/q/health/ready";
    /** Where it serves the started check. */
    public static final String STARTED_PATH = "/q/health/started";
    /** Where it serves the Prometheus metrics. */
    public static final String METRICS_PATH = "/q/metrics";

    /** A cluster that has not answered in this long is unreachable for readiness. */
    private static final long KAFKA_TIMEOUT_MS = 3_000;

    @Inject
    Lifecycle lifecycle;

    @Inject
    KafkaPorts kafka;

    @Liveness
    @ApplicationScoped
    static final class Live implements HealthCheck {
        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.up("mp-live");
        }
    }

    @Startup
    @ApplicationScoped
    static final class Started implements HealthCheck {
        @Inject
        Lifecycle lifecycle;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("mp-started")
                    .status(lifecycle.ready() || lifecycle.stopping())
                    .build();
        }
    }

    @Readiness
    @ApplicationScoped
    static final class Ready implements HealthCheck {
        @Inject
        Probes probes;

        @Override
        public HealthCheckResponse call() {
            return probes.readiness();
        }
    }

    HealthCheckResponse readiness() {
        HealthCheckResponseBuilder answer = HealthCheckResponse.named("mp-ready");
        boolean up = true;
        if (lifecycle.stopping()) {
            answer.withData("stopping", true);
            up = false;
        }
        if (!lifecycle.ready()) {
            answer.withData("started", false);
            up = false;
        }
        KafkaRuntime runtime = kafka.runtime();
        boolean reachable = runtime != null && kafkaAnswers(runtime);
        answer.withData("kafka", reachable ? "reachable" : "unreachable");
        up &= reachable;
        if (lifecycle.hostsGateway()) {
            Follower follower = kafka.follower();
            boolean caughtUp = follower != null && follower.caughtUp();
            answer.withData("follower", caughtUp ? "caught up" : "catching up");
            if (follower != null) {
                answer.withData("follower_lag_records", follower.lag());
            }
            up &= caughtUp;
        } else {
            // A projector or leases worker serves no API and follows no table (MP_ROLES).
            answer.withData("follower", "not hosted");
        }
        up &= streams(answer, "leases", lifecycle.leasesState(), lifecycle.hostsLeases());
        io.monitorbackbone.projector.Projector.State projector = lifecycle.projectorState();
        up &= hosted(
                answer,
                "projector",
                projector == null ? null : projector.name(),
                projector == io.monitorbackbone.projector.Projector.State.RUNNING,
                lifecycle.hostsProjector());
        return answer.status(up).build();
    }

    private static boolean streams(
            HealthCheckResponseBuilder answer, String name, KafkaStreams.State state, boolean hosted) {
        return hosted(
                answer,
                name,
                state == null ? null : state.name(),
                state == KafkaStreams.State.RUNNING || state == KafkaStreams.State.REBALANCING,
                hosted);
    }

    private static boolean hosted(
            HealthCheckResponseBuilder answer, String name, String state, boolean up, boolean hosted) {
        if (!hosted) {
            answer.withData(name, "not hosted");
            return true;
        }
        answer.withData(name, state == null ? "not started" : state);
        return up;
    }

    private static boolean kafkaAnswers(KafkaRuntime runtime) {
        try {
            runtime.admin().describeCluster().clusterId().get(KAFKA_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return false;
        }
    }
}
