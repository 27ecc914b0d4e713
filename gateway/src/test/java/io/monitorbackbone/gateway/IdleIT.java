package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * An idle server (all roles, its embedded broker) does not spin. Over a stretch with nothing to do, the loops that wait
 * for work turn a few times a second at most, read from the Kafka clients' own counters on /q/metrics: the leases
 * service's stream thread (it polled every 10 ms, a hundred turns a second), the projector's (every 100 ms) and the
 * consumers that wait in Kafka for what is new: the gateway's lease reply consumer (it asked the broker for replies
 * every 10 ms, then every 500 ms) and the bridge's reader of the monitors table (every 500 ms) now ask every five
 * seconds, and the sweeper's election consumer, which never reads its partition, does not fetch at all (two a second
 * before); the projector's main consumer asks the broker for nothing but its fetches, heartbeats and commits (it asked
 * for the whole cluster's metadata every second, to find new monitors' logs); and the leases service does not commit a
 * transaction for a sweep with nothing due (it swept, and so committed, every second). Counts per second of the stretch
 * as measured, so a loaded machine only lowers them; and a lease claim is still answered right after the stretch, and a
 * publish folded.
 */
class IdleIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    /** Fetches per second allowed of a consumer that waits 5 s in Kafka (0.2); a 500 ms wait makes 2, 10 ms 100. */
    private static final double AT_MOST_PER_SECOND = 1;
    /**
     * The projector's and the leases' idle polls wait a second: one turn a second, where the projector's old 100 ms
     * poll made ten and the leases' old 250 ms poll four.
     */
    private static final double STREAM_THREAD_AT_MOST_PER_SECOND = 3;

    @Test
    void anIdleServerTurnsItsWaitingLoopsAFewTimesASecondAndStillAnswersALeaseClaim() {
        try (ServerProcess server = ServerProcess.builder().start()) {
            Http api = new Http(server.baseUri());
            Http management = new Http(server.managementUri());
            Walk walk = new Walk(api);
            String projectorConsumer = "-logs-1\"";
            double assignedBefore = value(
                    scrape(management),
                    "kafka_consumer_coordinator_assigned_partitions",
                    "mp-projector-",
                    projectorConsumer);
            // One claim first, so the leases service has its tasks and both loops have run.
            Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
            walk.publish(m, "job-1");
            walk.publish(m, "job-2");
            Walk.Reader worker = worker(api, m);
            Http.Response first = claim(api, worker, "job-1");
            assertThat(first.status()).as(first.body()).isEqualTo(201);

            // The projector has taken up the new monitor's log, and its rebalance is over, before the stretch.
            await("the projector reads the new monitor's log").atMost(DEADLINE).untilAsserted(() -> {
                String now = scrape(management);
                assertThat(value(
                                now,
                                "kafka_consumer_coordinator_assigned_partitions",
                                "mp-projector-",
                                projectorConsumer))
                        .isEqualTo(assignedBefore + 1);
                assertThat(value(
                                now,
                                "kafka_consumer_coordinator_last_rebalance_seconds_ago",
                                "mp-projector-",
                                projectorConsumer))
                        .isGreaterThanOrEqualTo(2);
            });
            String before = scrape(management);
            long from = System.nanoTime();
            // The stretch the rates are counted over: nothing is asked of the server meanwhile.
            await().pollDelay(Duration.ofSeconds(10)).atMost(DEADLINE).until(() -> true);
            String after = scrape(management);
            double seconds = (System.nanoTime() - from) / 1e9;

            double leasePolls =
                    perSecond(before, after, seconds, "kafka_stream_thread_poll_total", "thread_id=\"mp-leases-");
            double replyFetches = perSecond(
                    before,
                    after,
                    seconds,
                    "kafka_consumer_fetch_manager_fetch_total",
                    "client_id=\"mp-lease-replies\"");
            double bridgeTableFetches =
                    perSecond(before, after, seconds, "kafka_consumer_fetch_manager_fetch_total", "-monitors\"");
            double sweeperFetches = perSecond(
                    before, after, seconds, "kafka_consumer_fetch_manager_fetch_total", "client_id=\"mp-sweeper\"");
            java.util.function.ToDoubleFunction<String> projector =
                    name -> perSecond(before, after, seconds, name, "mp-projector-", projectorConsumer);
            // Fetches, heartbeats and the commits of what the fold still reads of the claim (its lease rows) aside.
            double projectorOthers = projector.applyAsDouble("kafka_consumer_request_total")
                    - projector.applyAsDouble("kafka_consumer_fetch_manager_fetch_total")
                    - projector.applyAsDouble("kafka_consumer_coordinator_heartbeat_total")
                    - projector.applyAsDouble("kafka_consumer_coordinator_commit_total");
            double projectorPolls = perSecond(before, after, seconds, "mp_projector_polls_total");
            double leaseCommits =
                    perSecond(before, after, seconds, "kafka_stream_thread_commit_total", "thread_id=\"mp-leases-");
            assertThat(leaseCommits)
                    .as("commits (transactions) per second of the leases service, idle with one lease held far from"
                            + " its deadline (a sweep every second made two)")
                    .isLessThanOrEqualTo(0.5);
            assertThat(projectorPolls)
                    .as("polls per second of the projector's fold loop, idle (the Streams app's 100 ms poll made ten)")
                    .isLessThanOrEqualTo(STREAM_THREAD_AT_MOST_PER_SECOND);
            assertThat(leasePolls)
                    .as("polls per second of the leases service's stream thread, idle (its 250 ms poll made four)")
                    .isLessThanOrEqualTo(STREAM_THREAD_AT_MOST_PER_SECOND);
            assertThat(projectorOthers)
                    .as("requests per second of the projector's main consumer other than fetches, heartbeats and"
                            + " commits, idle (its metadata refresh every second made one)")
                    .isLessThanOrEqualTo(0.3);
            assertThat(replyFetches)
                    .as("fetches per second of the lease reply consumer, idle")
                    .isLessThanOrEqualTo(AT_MOST_PER_SECOND);
            assertThat(bridgeTableFetches)
                    .as("fetches per second of the bridge's reader of mp.monitors, idle")
                    .isLessThanOrEqualTo(AT_MOST_PER_SECOND);
            assertThat(sweeperFetches)
                    .as("fetches per second of the sweeper's election consumer, which never reads its partition")
                    .isLessThanOrEqualTo(0.1);

            Http.Response second = claim(api, worker, "job-2");
            assertThat(second.status()).as(second.body()).isEqualTo(201);
            // The projector, idle in its long poll, still folds what comes next.
            long seq = walk.publish(m, "job-3");
            await("the publish after the idle stretch is in the monitor's state")
                    .atMost(DEADLINE)
                    .until(() -> walk.state(m).json().get("as_of_seq").asLong() >= seq);
        }
    }

    private static Walk.Reader worker(Http api, Walk.Monitor m) {
        Http.Response r = api.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:worker\",\"capabilities\":[\"observe\",\"act\"]}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Walk.Reader(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private static Http.Response claim(Http api, Walk.Reader w, String subject) {
        return api.post(
                "/mp/v0/subscriptions/" + w.subscription() + "/leases/claim",
                "{\"subject\":\"" + subject + "\"}",
                w.token());
    }

    private static String scrape(Http management) {
        Http.Response r = management.get(Probes.METRICS_PATH, null);
        assertThat(r.status()).isEqualTo(200);
        return r.body();
    }

    /** How much the first sample of {@code name} with all {@code labels} grew from one scrape to the next, per second. */
    private static double perSecond(String before, String after, double seconds, String name, String... labels) {
        return (value(after, name, labels) - value(before, name, labels)) / seconds;
    }

    /** The value of the first sample of {@code name} whose labels contain all of {@code parts}; fails when none. */
    private static double value(String scrape, String name, String... parts) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)")
                .matcher(scrape);
        while (m.find()) {
            String labels = m.group(1) == null ? "" : m.group(1);
            if (java.util.Arrays.stream(parts).allMatch(labels::contains)) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no sample " + name + " with " + String.join(", ", parts));
    }
}
