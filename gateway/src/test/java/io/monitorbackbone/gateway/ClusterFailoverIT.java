package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.KafkaCluster;
import io.monitorbackbone.testsupport.Schemas;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two gateways on a 3-broker KRaft cluster of child processes (replication factor 3, min ISR 2): the leader of a busy
 * monitor's partition is killed with {@code kill -9} under load from several threads over both gateways (publishes,
 * pulls, lease claims), and started again; then the leader of the cursors table, which every pull catches up with. Every acknowledged observation is then readable at its seq with its content, no answer was a 500 and
 * every refusal a protocol error body, publishing succeeded again after the kill, a cursor and a lease made before it
 * survived it, and the killed broker is back in the ISR. First, on the same cluster, a start with one replica is
 * refused.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFailoverIT {
    /** Every wait is a condition with this deadline: the machine is shared and loaded. */
    private static final Duration GENEROUS = Duration.ofSeconds(120);

    private static final int PUBLISHERS = 4;
    private static final String MONITOR = "busy";

    private static KafkaCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = KafkaCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void oneReplicaOnThreeBrokersIsRefusedAtStartNamingTheSettingAndCreatesNoTopic(@TempDir Path data)
            throws Exception {
        CompletableFuture<RefusedStart> one = CompletableFuture.supplyAsync(
                () -> refusedStart(data.resolve("one"), Map.of("KAFKA_BOOTSTRAP_SERVERS", cluster.bootstrapServers())));
        CompletableFuture<RefusedStart> five = CompletableFuture.supplyAsync(() -> refusedStart(
                data.resolve("five"),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", cluster.bootstrapServers(), "MP_REPLICATION_FACTOR", "5")));
        RefusedStart run = one.join();
        RefusedStart tooMany = five.join();

        run.assertRefusedWith(
                "monitor-backbone cannot start: MP_REPLICATION_FACTOR is 1 on a Kafka cluster of 3 brokers",
                "MP_ALLOW_SINGLE_REPLICA=true");
        tooMany.assertRefusedWith(
                "monitor-backbone cannot start: MP_REPLICATION_FACTOR is 5 but the Kafka cluster has 3 brokers",
                "at most 3");
        assertThat(cluster.admin().listTopics().names().get(30, TimeUnit.SECONDS))
                .as("refused before any topic was created")
                .noneMatch(t -> t.startsWith("mp"));
    }

    @Test
    @Order(2)
    void killingTheLeaderOfABusyMonitorLosesNoAcknowledgedObservationAndAnswersNo500() throws Exception {
        Map<String, String> env = Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", cluster.bootstrapServers(),
                "MP_REPLICATION_FACTOR", "3",
                "MP_MIN_INSYNC_REPLICAS", "2");
        // Both at once, as the pods of a deployment start: whichever is first creates the topics.
        CompletableFuture<ServerProcess> starting1 = CompletableFuture.supplyAsync(() -> ServerProcess.builder()
                .env(env)
                .env("MP_INSTANCE_ID", "failover-1")
                .start());
        CompletableFuture<ServerProcess> starting2 = CompletableFuture.supplyAsync(() -> ServerProcess.builder()
                .env(env)
                .env("MP_INSTANCE_ID", "failover-2")
                .start());
        long began = System.nanoTime();
        try (ServerProcess first = starting1.join();
                ServerProcess second = starting2.join()) {
            phase(began, "two gateways ready");
            List<Http> gateways = List.of(new Http(first.baseUri()), new Http(second.baseUri()));
            Http a = gateways.get(0);
            Http b = gateways.get(1);

            Http.Response created = a.post(
                    "/mp/v0/monitors",
                    "{\"id\":\"" + MONITOR + "\",\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}",
                    null);
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            String owner = created.json().get("owner_token").asText();
            assertThat(publish(a, owner, "job-held", "before").status()).isEqualTo(201);
            Worker reader = subscribe(a, owner, "agent:reader");
            Worker holder = subscribe(a, owner, "agent:holder");
            Worker rival = subscribe(a, owner, "agent:rival");
            Http.Response claimed = claim(b, holder, "job-held");
            assertThat(claimed.status()).as(claimed.body()).isEqualTo(201);
            String heldBy = claimed.json().at("/lease/holder").asText();
            Http.Response acked = a.post("/mp/v0/subscriptions/" + reader.id + "/ack", "{\"cursor\": 3}", reader.token);
            assertThat(acked.status()).as(acked.body()).isEqualTo(200);
            await("the second gateway sees the subscriptions and the cursor")
                    .atMost(GENEROUS)
                    .until(() -> cursorOf(b, reader) == 3);
            assertEveryTopicOfTheServerIsReplicatedThriceWithMinIsrTwo();
            phase(began, "monitor, subscriptions, lease and cursor made; topics checked");

            TopicPartition log = new TopicPartition("mp.obs." + MONITOR, 0);
            Load load = new Load(gateways, owner, reader, rival);
            long elected;
            long tableElected;
            load.start();
            try {
                await("publishes are acknowledged before the kill")
                        .atMost(GENEROUS)
                        .until(() -> load.acked.size() >= 40);
                int leader = cluster.leaderOf(log);
                assertThat(leader).isPositive();

                cluster.kill9(leader);
                long killed = System.nanoTime();
                phase(began, "killed node " + leader + ", the leader of " + log);
                elected = awaitNewLeaders(leader);
                phase(began, "every partition node " + leader + " led has a new leader");
                awaitLoad(
                        load,
                        "publishing and pulling succeed again after the kill, through both gateways",
                        killed,
                        10,
                        "publish",
                        "pull");
                assertThat(cluster.leaderOf(log)).isNotEqualTo(leader);

                phase(began, "serving again");
                cluster.restart(leader);
                phase(began, "node " + leader + " restarted");
                cluster.awaitInIsr(log, leader, GENEROUS);
                long restarted = System.nanoTime();
                phase(began, "node " + leader + " back in the ISR");
                awaitLoad(load, "publishing and pulling go on after the restart", restarted, 5, "publish", "pull");

                // Every pull and ack first catches up with the cursors table: its leader lost too, while the load
                // goes on, and the gateways must find the new one (they did not while Admin.listOffsets held on to the
                // dead one, KAFKA-20673).
                TopicPartition cursors = new TopicPartition("mp.cursors", 0);
                int cursorsLeader = cluster.leaderOf(cursors);
                assertThat(cursorsLeader).isPositive();
                cluster.kill9(cursorsLeader);
                long tableKilled = System.nanoTime();
                phase(began, "killed node " + cursorsLeader + ", the leader of " + cursors);
                tableElected = awaitNewLeaders(cursorsLeader);
                phase(began, "every partition node " + cursorsLeader + " led has a new leader");
                awaitLoad(
                        load,
                        "publishing and pulling succeed again with the cursors table's leader gone",
                        tableKilled,
                        10,
                        "publish",
                        "pull");
                phase(began, "serving again");
                cluster.restart(cursorsLeader);
                cluster.awaitInIsr(cursors, cursorsLeader, GENEROUS);
                cluster.awaitInIsr(log, cursorsLeader, GENEROUS);
                phase(began, "node " + cursorsLeader + " back in the ISRs");
                // The leases service (Kafka Streams, exactly once) takes longest: its transactions in flight at a kill
                // are aborted and its tasks migrate; the claims meanwhile were answered 503, checked below.
                awaitLoad(load, "claiming succeeds again", tableKilled, 5, "claim");
                phase(began, "claims answered again");
            } finally {
                load.stop();
            }
            // A pull first catches up with the cursors table: once its partitions have live leaders again, nothing
            // keeps it from being answered (Admin.listOffsets kept asking the dead leader, KAFKA-20673).
            assertThat(load.refusedAfter("pull", elected))
                    .as("pulls sent once every partition of the first killed broker had a new leader")
                    .isEmpty();
            assertThat(load.refusedAfter("pull", tableElected))
                    .as("pulls sent once the cursors table and the rest of the second killed broker had new leaders")
                    .isEmpty();

            System.out.printf(
                    "ClusterFailoverIT: killed the leader of %s; succeeded %s; %d refused (%s)%n",
                    log,
                    load.summary(),
                    load.refused().size(),
                    load.refused().stream()
                            .map(r -> r.status() + " "
                                    + (r.json() == null
                                            ? "-"
                                            : r.json().path("code").asText()))
                            .collect(Collectors.groupingBy(c -> c, Collectors.counting())));
            assertThat(load.failures).as("no request failed without an answer").isEmpty();
            assertThat(load.refused())
                    .as("every refusal during the election is a protocol error, none a 500")
                    .allSatisfy(r -> {
                        assertThat(r.status()).as(r.body()).isNotEqualTo(500).isBetween(400, 599);
                        assertThat(r.json()).as(r.body()).isNotNull();
                        assertThat(r.json().has("code")
                                        && r.json().has("error")
                                        && r.json().has("done"))
                                .as(r.body())
                                .isTrue();
                        Schemas.assertValid("error", r.json());
                    });
            Map<Long, String> served = readLog(b, reader, load.highestAcked());
            assertThat(load.acked)
                    .as("every acknowledged observation is readable at its seq with its content")
                    .allSatisfy((seq, marker) ->
                            assertThat(served.get(seq)).as("seq %d", seq).isEqualTo(marker));
            assertThat(cursorOf(a, reader))
                    .as("the cursor acked before the kill")
                    .isEqualTo(3);
            Http.Response taken = claim(a, rival, "job-held");
            assertThat(taken.status()).as(taken.body()).isEqualTo(409);
            assertThat(taken.json().get("code").asText()).isEqualTo("LEASE_HELD");
            assertThat(taken.json().get("holder").asText()).isEqualTo(heldBy);
            Http.Response again = claim(b, holder, "job-held");
            assertThat(again.status())
                    .as("the holder's claim again is idempotent: " + again.body())
                    .isEqualTo(200);
            assertThat(cluster.isr(log)).containsExactlyInAnyOrder(1, 2, 3);
            assertThat(first.isAlive() && second.isAlive()).isTrue();
        }
    }

    private static RefusedStart refusedStart(Path data, Map<String, String> env) {
        try {
            return RefusedStart.run(data, env);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Waits until no partition of the server's topics is led by the killed node or by none.
     *
     * @return when that was seen (System.nanoTime)
     */
    private static long awaitNewLeaders(int killed) {
        await("every partition node " + killed + " led has a new leader")
                .atMost(GENEROUS)
                .ignoreExceptions()
                .until(
                        () -> cluster
                                .admin()
                                .describeTopics(serverTopics())
                                .allTopicNames()
                                .get(20, TimeUnit.SECONDS)
                                .values()
                                .stream()
                                .flatMap(d -> d.partitions().stream())
                                .allMatch(p -> p.leader() != null
                                        && !p.leader().isEmpty()
                                        && p.leader().id() != killed));
        return System.nanoTime();
    }

    /** What the test has reached, and when: for reading a slow run's output, never asserted. */
    private static void phase(long began, String what) {
        System.out.printf(
                "ClusterFailoverIT +%ds: %s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began), what);
    }

    /** Waits until every kind of request succeeded through each gateway, else says what did and what was refused. */
    private static void awaitLoad(Load load, String what, long since, int times, String... kinds) {
        try {
            await(what).atMost(GENEROUS).until(() -> load.succeededAfter(since, times, kinds));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    what + ": not within " + GENEROUS + "; succeeded since: " + load.summary(since) + "; refused: "
                            + load.refused().stream()
                                    .map(Http.Response::body)
                                    .distinct()
                                    .limit(5)
                                    .toList()
                            + "; failed: " + load.failures.stream().limit(5).toList(),
                    e);
        }
    }

    /** The tables, logs, lease topics, mp.state and the leases app's internal topics: three copies, min ISR two. */
    private static void assertEveryTopicOfTheServerIsReplicatedThriceWithMinIsrTwo() throws Exception {
        await("the leases app has created its internal topics")
                .atMost(GENEROUS)
                .until(() -> serverTopics().stream().anyMatch(t -> t.startsWith("mp-leases-")));
        Set<String> topics = serverTopics();
        Map<String, TopicDescription> described =
                cluster.admin().describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
        Map<ConfigResource, Config> configs = cluster.admin()
                .describeConfigs(topics.stream()
                        .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                        .toList())
                .all()
                .get(30, TimeUnit.SECONDS);

        assertThat(topics)
                .contains(
                        "mp.monitors",
                        "mp.subscriptions",
                        "mp.cursors",
                        "mp.sweeper",
                        "mp.leases",
                        "mp.lease-commands",
                        "mp.lease-replies",
                        "mp.lease-subjects",
                        "mp.state",
                        "mp.obs." + MONITOR);
        described.forEach((name, d) -> assertThat(d.partitions())
                .as(name)
                .allSatisfy(p -> assertThat(p.replicas()).as(name).hasSize(3)));
        configs.forEach((resource, config) -> assertThat(
                        config.get("min.insync.replicas").value())
                .as(resource.name())
                .isEqualTo("2"));
    }

    private static Set<String> serverTopics() throws Exception {
        return cluster.admin().listTopics().names().get(30, TimeUnit.SECONDS).stream()
                .filter(t -> t.startsWith("mp.") || t.startsWith("mp-leases-") || t.startsWith("mp-projector-"))
                .collect(Collectors.toSet());
    }

    private record Worker(String id, String token) {}

    private static Worker subscribe(Http http, String owner, String subscriber) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + MONITOR + "\",\"subscriber\":\"" + subscriber
                        + "\",\"capabilities\":[\"observe\",\"act\"]}",
                owner);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Worker(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private static Http.Response claim(Http http, Worker worker, String subject) {
        return http.post(
                "/mp/v0/subscriptions/" + worker.id + "/leases/claim",
                "{\"subject\":\"" + subject + "\"}",
                worker.token);
    }

    private static Http.Response publish(Http http, String owner, String subject, String marker) {
        return http.post(
                "/mp/v0/monitors/" + MONITOR + "/observations",
                "{\"type\":\"demo.load\",\"subject\":\"" + subject + "\",\"data\":{\"marker\":\"" + marker + "\"}}",
                owner);
    }

    private static long cursorOf(Http http, Worker reader) {
        Http.Response r = http.get("/mp/v0/subscriptions/" + reader.id + "/pull?limit=1", reader.token);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("cursor").asLong();
    }

    /** Each seq of the monitor's log up to {@code head}, with its marker ({@code data.marker}, null for other rows). */
    private static Map<Long, String> readLog(Http http, Worker reader, long head) {
        Map<Long, String> served = new HashMap<>();
        long cursor = 1;
        while (cursor <= head) {
            Http.Response page =
                    http.get("/mp/v0/subscriptions/" + reader.id + "/pull?limit=200&cursor=" + cursor, reader.token);
            assertThat(page.status()).as(page.body()).isEqualTo(200);
            for (JsonNode o : page.json().get("observations")) {
                JsonNode marker = o.at("/data/marker");
                served.put(o.get("id").asLong(), marker.isTextual() ? marker.asText() : null);
            }
            long next = page.json().get("next").asLong();
            assertThat(next).as("the read moves on").isGreaterThan(cursor);
            cursor = next;
        }
        return served;
    }

    private record Refusal(String kind, long sentAt, Http.Response response) {}

    /**
     * Several threads publishing to the busy monitor, a reader pulling from it and a worker claiming subjects of it,
     * each taking turns between the gateways.
     */
    private static final class Load {
        final List<Http> gateways;
        final String owner;
        final Worker reader;
        final Worker claimer;
        final AtomicBoolean stopping = new AtomicBoolean();
        final Map<Long, String> acked = new ConcurrentHashMap<>();
        /** For each kind of request and gateway, when each one that succeeded was sent (System.nanoTime). */
        final Map<String, Collection<Long>> succeededSentAt = new ConcurrentHashMap<>();

        final Collection<Refusal> refusals = new ConcurrentLinkedQueue<>();
        final Collection<String> failures = new ConcurrentLinkedQueue<>();
        final AtomicInteger duplicateSeqs = new AtomicInteger();
        final List<CompletableFuture<Void>> threads = new ArrayList<>();

        Load(List<Http> gateways, String owner, Worker reader, Worker claimer) {
            this.gateways = gateways;
            this.owner = owner;
            this.reader = reader;
            this.claimer = claimer;
        }

        void start() {
            for (int t = 0; t < PUBLISHERS; t++) {
                int thread = t;
                spawn("publisher-" + thread, () -> publishing(thread));
            }
            spawn("reader", this::reading);
            spawn("claimer", this::claiming);
        }

        private void spawn(String name, Runnable body) {
            threads.add(CompletableFuture.runAsync(body, command -> {
                Thread worker = new Thread(command, name);
                worker.setDaemon(true);
                worker.start();
            }));
        }

        private void publishing(int thread) {
            for (int n = 0; !stopping.get(); n++) {
                int via = (thread + n) % gateways.size();
                String marker = "t" + thread + "-" + n;
                long sent = System.nanoTime();
                Http.Response r =
                        send("publish", via, () -> publish(gateways.get(via), owner, "load-" + thread, marker));
                if (r != null && r.status() == 201) {
                    if (acked.putIfAbsent(r.json().get("seq").asLong(), marker) != null) {
                        duplicateSeqs.incrementAndGet();
                    }
                    succeeded("publish", via, sent);
                }
            }
        }

        private void reading() {
            long cursor = 1;
            for (int n = 0; !stopping.get(); n++) {
                int via = n % gateways.size();
                long from = cursor;
                long sent = System.nanoTime();
                Http.Response r = send(
                        "pull",
                        via,
                        () -> gateways.get(via)
                                .get(
                                        "/mp/v0/subscriptions/" + reader.id + "/pull?limit=50&cursor=" + from,
                                        reader.token));
                if (r != null && r.status() == 200) {
                    succeeded("pull", via, sent);
                    cursor = r.json().get("observations").isEmpty()
                            ? 1
                            : r.json().get("next").asLong();
                }
            }
        }

        private void claiming() {
            for (int n = 0; !stopping.get(); n++) {
                int via = n % gateways.size();
                // The publishers' subjects: claimed once, then each claim again is the holder's, answered 200.
                String subject = "load-" + (n % PUBLISHERS);
                long sent = System.nanoTime();
                Http.Response r = send("claim", via, () -> claim(gateways.get(via), claimer, subject));
                if (r != null && (r.status() == 201 || r.status() == 200)) {
                    succeeded("claim", via, sent);
                }
            }
        }

        /** The answer; a refusal is kept (it must be a protocol error), a request without an answer a failure. */
        private Http.Response send(String kind, int via, java.util.function.Supplier<Http.Response> request) {
            long sent = System.nanoTime();
            try {
                Http.Response r = request.get();
                if (r.status() >= 300) {
                    refusals.add(new Refusal(kind, sent, r));
                }
                return r;
            } catch (RuntimeException e) {
                failures.add(kind + " via gateway " + via + ": " + e);
                return null;
            }
        }

        private void succeeded(String kind, int via, long sentAt) {
            succeededSentAt
                    .computeIfAbsent(kind + via, k -> new ConcurrentLinkedQueue<>())
                    .add(sentAt);
        }

        /** Whether each of these kinds of request, through each gateway, succeeded {@code times} sent after then. */
        boolean succeededAfter(long nanoTime, int times, String... kinds) {
            for (String kind : kinds) {
                for (int via = 0; via < gateways.size(); via++) {
                    long n = succeededSentAt.getOrDefault(kind + via, List.of()).stream()
                            .filter(t -> t > nanoTime)
                            .count();
                    if (n < times) {
                        return false;
                    }
                }
            }
            return true;
        }

        String summary() {
            return summary(Long.MIN_VALUE);
        }

        /** How many of each kind succeeded through each gateway, sent after {@code since}. */
        String summary(long since) {
            return succeededSentAt.entrySet().stream()
                    .map(e -> e.getKey() + "="
                            + e.getValue().stream().filter(t -> t > since).count())
                    .sorted()
                    .collect(Collectors.joining(" "));
        }

        List<Http.Response> refused() {
            return refusals.stream().map(Refusal::response).toList();
        }

        /** The refusals of one kind of request sent after {@code nanoTime}. */
        List<String> refusedAfter(String kind, long nanoTime) {
            return refusals.stream()
                    .filter(r -> r.kind().equals(kind) && r.sentAt() > nanoTime)
                    .map(r -> r.response().body())
                    .toList();
        }

        long highestAcked() {
            return acked.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
        }

        void stop() throws Exception {
            stopping.set(true);
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new))
                    .get(GENEROUS.toSeconds(), TimeUnit.SECONDS);
            assertThat(duplicateSeqs.get())
                    .as("two publishes acknowledged at one seq")
                    .isZero();
        }
    }
}
