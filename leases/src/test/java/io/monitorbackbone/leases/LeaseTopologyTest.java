package io.monitorbackbone.leases;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;
import io.monitorbackbone.protocol.lease.LeaseState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseTopologyTest {
    private static final Instant T0 = Instant.parse("2026-11-29T18:09:17.598Z");
    private static final String APP = "mp-leases-test";
    private static final LeaseSerdes SERDES = LeaseSerdes.json();
    private static final String W1 = "w-1";
    private static final String W2 = "w-2";
    private static final String A = "sub-a";
    private static final String B = "sub-b";

    @TempDir
    Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, LeaseCommand> commands;
    private TestOutputTopic<String, LeaseReply> replies;
    private TestOutputTopic<String, Lease> leases;
    private final Map<String, TestOutputTopic<String, byte[]>> logs = new HashMap<>();
    private final Map<String, Monitor> monitors = new HashMap<>();

    @BeforeEach
    void start() {
        startDriver(T0);
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void aClaimOfAPublishedSubjectIsGrantedAndLoggedInTheMonitorsLog() {
        publish(W1, "build-1");

        LeaseCommand claim = command(
                W1,
                A,
                "claim",
                "{\"subject\":\"build-1\",\"lease_duration_seconds\":30,\"note\":\"taking it\"}",
                false);
        LeaseReply reply = send(claim);

        assertThat(reply.status()).isEqualTo(201);
        assertThat(reply.body().at("/lease/holder").asText()).isEqualTo("sub:sub-a");
        assertThat(reply.body().get("expires").asText()).isEqualTo("2026-11-29T18:09:47.598Z");
        assertThat(reply.body().get("idempotent").asBoolean()).isFalse();
        List<TestRecord<String, Lease>> table = leases.readRecordsToList();
        assertThat(table).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("w-1\u0000build-1");
            assertThat(r.value().holder()).isEqualTo("sub:sub-a");
        });
        CloudEvent row = singleRow(W1);
        assertThat(row.getId()).isEqualTo(claim.requestId());
        assertThat(row.getType()).isEqualTo(Vocabulary.LEASE);
        assertThat(row.getSubject()).isEqualTo("build-1");
        assertThat(row.getSource().toString()).isEqualTo("monitor:w-1");
        assertThat(row.getExtension("actor")).isEqualTo("agent:sub-a");
        assertThat(row.getExtension("horizon")).isEqualTo("minute");
        assertThat(payload(row).get("action").asText()).isEqualTo("claim");
        assertThat(payload(row).get("note").asText()).isEqualTo("taking it");
    }

    @Test
    void theRowIsKeyedBySubjectLikeEveryObservation() {
        publish(W1, "build-1");

        send(command(W1, A, "claim", "{\"subject\":\"build-1\"}", false));

        assertThat(log(W1).readRecord().key()).isEqualTo("build-1");
    }

    @Test
    void aRepeatedClaimIsIdempotentAndWritesNothing() {
        publish(W1, "build-1");
        LeaseReply first =
                send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));
        drainOutputs(W1);
        driver.advanceWallClockTime(Duration.ofMillis(500));

        LeaseReply again =
                send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));

        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("idempotent").asBoolean()).isTrue();
        assertThat(again.body().get("lease")).isEqualTo(first.body().get("lease"));
        assertThat(log(W1).isEmpty()).isTrue();
        assertThat(leases.isEmpty()).isTrue();
    }

    @Test
    void aClaimOfAHeldSubjectIsRefusedNamingTheHolder() {
        publish(W1, "build-1");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));
        drainOutputs(W1);

        LeaseReply reply = send(command(W1, B, "claim", "{\"subject\":\"build-1\"}", true));

        assertThat(reply.status()).isEqualTo(409);
        assertThat(reply.body().get("code").asText()).isEqualTo("LEASE_HELD");
        assertThat(reply.body().get("holder").asText()).isEqualTo("sub:sub-a");
        assertThat(reply.body().get("expires").asText()).isEqualTo("2026-11-29T18:09:47.598Z");
        assertThat(reply.eventId()).isNull();
        assertThat(log(W1).isEmpty()).isTrue();
        assertThat(leases.isEmpty()).isTrue();
    }

    @Test
    void renewByTheHolderMovesTheDeadline() {
        publish(W1, "build-1");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));
        drainOutputs(W1);
        driver.advanceWallClockTime(Duration.ofSeconds(20));

        LeaseReply reply =
                send(command(W1, A, "renew", "{\"subject\":\"build-1\",\"lease_duration_seconds\":60}", true));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body().get("expires").asText()).isEqualTo("2026-11-29T18:10:37.598Z");
        assertThat(leases.readValue().renewTime()).isEqualTo(T0.plusSeconds(20));
        assertThat(payload(singleRow(W1)).get("action").asText()).isEqualTo("renew");
    }

    @Test
    void completeFreesTheSubjectAndTombstonesTheLease() {
        publish(W1, "build-1");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\"}", false));
        drainOutputs(W1);

        LeaseCommand complete = command(
                W1,
                A,
                "complete",
                "{\"subject\":\"build-1\",\"outcome\":\"fixed\",\"evidence\":[{\"source\":\"monitor:w-1\",\"id\":\"203\"}],\"note\":\"ok\"}",
                true);
        LeaseReply reply = send(complete);

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.body()).isEqualTo(Json.read("{\"ok\":true,\"seq\":null}".getBytes(StandardCharsets.UTF_8)));
        assertThat(reply.eventId()).isEqualTo(complete.requestId());
        TestRecord<String, Lease> tombstone = leases.readRecord();
        assertThat(tombstone.key()).isEqualTo("w-1\u0000build-1");
        assertThat(tombstone.value()).isNull();
        CloudEvent row = singleRow(W1);
        assertThat(row.getId()).isEqualTo(complete.requestId());
        assertThat(payload(row).get("outcome").asText()).isEqualTo("fixed");
        assertThat(payload(row).at("/evidence/0/id").asText()).isEqualTo("203");

        LeaseReply next = send(command(W1, B, "claim", "{\"subject\":\"build-1\"}", false));
        assertThat(next.status()).isEqualTo(201);
        assertThat(next.body().at("/lease/attempts").asInt()).isEqualTo(1);
    }

    @Test
    void anIdenticalCompleteGetsTheSameAnswerAndWritesNothing() {
        publish(W1, "build-1");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\"}", false));
        String body = "{\"subject\":\"build-1\",\"outcome\":\"fixed\"}";
        LeaseReply first = send(command(W1, A, "complete", body, true));
        drainOutputs(W1);

        LeaseReply again = send(command(W1, A, "complete", body, true));

        assertThat(again).isEqualTo(first);
        assertThat(log(W1).isEmpty()).isTrue();
        assertThat(leases.isEmpty()).isTrue();
    }

    @Test
    void releaseFreesTheSubjectForTheNextClaimant() {
        publish(W1, "build-1");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\"}", false));
        drainOutputs(W1);

        LeaseReply released =
                send(command(W1, A, "release", "{\"subject\":\"build-1\",\"reason\":\"not mine\"}", true));
        LeaseReply claimed = send(command(W1, B, "claim", "{\"subject\":\"build-1\"}", true));

        assertThat(released.status()).isEqualTo(200);
        assertThat(released.body().get("dead_letter").asBoolean()).isFalse();
        assertThat(claimed.status()).isEqualTo(201);
        assertThat(claimed.body().at("/lease/attempts").asInt()).isEqualTo(2);
        assertThat(claimed.body().at("/lease/lease_transitions").asInt()).isEqualTo(1);
        assertThat(leases.readValuesToList()).extracting(Lease::holder).containsExactly(null, "sub:sub-b");
        assertThat(rows(W1)).extracting(r -> payload(r).get("action").asText()).containsExactly("release", "claim");
    }

    @Test
    void theRejectThatReachesTheLimitDeadLettersTheSubjectForEveryone() {
        publish(W1, "build-2");
        LeaseReply last = null;
        for (int attempt = 1; attempt <= 5; attempt++) {
            send(command(W1, A, "claim", "{\"subject\":\"build-2\"}", false));
            last = send(
                    command(W1, A, "reject", "{\"subject\":\"build-2\",\"reason\":\"flaky " + attempt + "\"}", true));
        }
        drainOutputs(W1);

        LeaseReply byB = send(command(W1, B, "claim", "{\"subject\":\"build-2\"}", true));

        assertThat(last.body().get("dead_letter").asBoolean()).isTrue();
        assertThat(byB.status()).isEqualTo(409);
        assertThat(byB.body().get("code").asText()).isEqualTo("DEAD_LETTERED");
        assertThat(byB.body().get("attempts").asInt()).isEqualTo(5);
        assertThat(byB.body().get("delivery_count_limit").asInt()).isEqualTo(5);
        assertThat(leaseState(W1, "build-2").lease().deadLetter()).isTrue();
    }

    @Test
    void aSubjectTheMonitorNeverPublishedIsNotFound() {
        LeaseReply reply = send(command(W1, A, "claim", "{\"subject\":\"never-published\"}", false));

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.body().get("code").asText()).isEqualTo("NOT_FOUND");
        assertThat(reply.body().get("monitor").asText()).isEqualTo(W1);
        assertThat(leases.isEmpty()).isTrue();
        assertThat(log(W1).isEmpty()).isTrue();
        assertThat(leaseState(W1, "never-published")).isNull();
    }

    @Test
    void aSubjectBecomesClaimableOnceItsMonitorPublishesIt() {
        LeaseReply before = send(command(W1, A, "claim", "{\"subject\":\"build-3\"}", false));
        publish(W1, "build-3");

        LeaseReply after = send(command(W1, A, "claim", "{\"subject\":\"build-3\"}", false));

        assertThat(before.status()).isEqualTo(404);
        assertThat(after.status()).isEqualTo(201);
    }

    @Test
    void aProtocolRowNamingASubjectDoesNotMakeItClaimable() {
        publishAs(W1, "build-4", Vocabulary.REJECTED);

        LeaseReply reply = send(command(W1, A, "claim", "{\"subject\":\"build-4\"}", false));

        assertThat(reply.status()).isEqualTo(404);
    }

    @Test
    void anExpiredLeaseIsFreedByTheSweepWithNoRequest() {
        publish(W1, "build-1");
        claimForThirtySecondsAndPassTheDeadline();

        CloudEvent row = singleRow(W1);
        assertThat(row.getExtension("actor")).isEqualTo("system:sweep");
        assertThat(row.getExtension("origin")).isEqualTo("system");
        assertThat(payload(row))
                .isEqualTo(Json.read("{\"action\":\"expired\",\"subject\":\"build-1\",\"holder\":\"sub:sub-a\"}"
                        .getBytes(StandardCharsets.UTF_8)));
        assertThat(leases.readValue().holder()).isNull();
        LeaseReply takeover = send(command(W1, B, "claim", "{\"subject\":\"build-1\"}", true));
        assertThat(takeover.status()).isEqualTo(201);
        assertThat(takeover.body().at("/lease/lease_transitions").asInt()).isEqualTo(1);
        assertThat(rows(W1)).extracting(r -> payload(r).get("action").asText()).containsExactly("claim");
    }

    /** A claims build-1 for 30 s; nothing happens at the deadline itself, and then a second passes. */
    private void claimForThirtySecondsAndPassTheDeadline() {
        send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));
        drainOutputs(W1);

        driver.advanceWallClockTime(Duration.ofSeconds(30));
        assertThat(log(W1).isEmpty())
                .as("the deadline itself is still inside the lease")
                .isTrue();
        driver.advanceWallClockTime(Duration.ofSeconds(1));
    }

    @Test
    void aLeaseClaimedLongAfterTheLastSweepStillExpiresAtItsDeadline() {
        publish(W1, "build-1");
        // Nothing held: the sweep after the task's start found nothing and none is scheduled since.
        driver.advanceWallClockTime(Duration.ofMinutes(5));
        claimForThirtySecondsAndPassTheDeadline();

        assertThat(payload(singleRow(W1)).get("action").asText()).isEqualTo("expired");
        assertThat(leaseState(W1, "build-1").lease().holder()).isNull();
    }

    @Test
    void aRenewedLeaseIsSweptAtItsNewDeadlineAndAnEarlierClaimElsewhereAtItsOwn() {
        publish(W1, "build-1");
        publish(W1, "build-2");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));
        driver.advanceWallClockTime(Duration.ofSeconds(10));
        send(command(W1, A, "renew", "{\"subject\":\"build-1\",\"lease_duration_seconds\":60}", true));
        // Due before the sweep the renewal scheduled (at 70 s): it moves the sweep earlier.
        send(command(W1, B, "claim", "{\"subject\":\"build-2\",\"lease_duration_seconds\":5}", false));
        drainOutputs(W1);

        driver.advanceWallClockTime(Duration.ofSeconds(6));
        assertThat(rows(W1)).extracting(r -> payload(r).get("subject").asText()).containsExactly("build-2");
        driver.advanceWallClockTime(Duration.ofSeconds(14));
        assertThat(log(W1).isEmpty())
                .as("build-1's first deadline (30 s) was moved to 70 s")
                .isTrue();
        driver.advanceWallClockTime(Duration.ofSeconds(41));
        assertThat(rows(W1)).extracting(r -> payload(r).get("subject").asText()).containsExactly("build-1");
    }

    @Test
    void theSweepLeavesLiveAndFreeLeasesAlone() {
        publish(W1, "build-1");
        publish(W1, "build-2");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":60}", false));
        send(command(W1, A, "claim", "{\"subject\":\"build-2\",\"lease_duration_seconds\":10}", false));
        send(command(W1, A, "release", "{\"subject\":\"build-2\"}", true));
        drainOutputs(W1);

        driver.advanceWallClockTime(Duration.ofSeconds(30));

        assertThat(log(W1).isEmpty()).isTrue();
        assertThat(leaseState(W1, "build-1").lease().holder()).isEqualTo("sub:sub-a");
    }

    @Test
    void completeAfterExpiryAndTakeoverIsLeaseLost() {
        publish(W1, "reading");
        send(command(W1, A, "claim", "{\"subject\":\"reading\",\"lease_duration_seconds\":1}", false));
        driver.advanceWallClockTime(Duration.ofSeconds(2));
        send(command(W1, B, "claim", "{\"subject\":\"reading\",\"lease_duration_seconds\":60}", true));

        LeaseReply reply = send(command(W1, A, "complete", "{\"subject\":\"reading\"}", true));

        assertThat(reply.status()).isEqualTo(409);
        assertThat(reply.body().get("code").asText()).isEqualTo("LEASE_LOST");
        assertThat(reply.body().get("holder").asText()).isEqualTo("sub:sub-b");
    }

    @Test
    void twoMonitorsPublishingTheSameSubjectDoNotContend() {
        publish(W1, "build-1");
        publish(W2, "build-1");

        LeaseReply onW1 = send(command(W1, A, "claim", "{\"subject\":\"build-1\"}", false));
        LeaseReply onW2 = send(command(W2, B, "claim", "{\"subject\":\"build-1\"}", false));

        assertThat(onW1.status()).isEqualTo(201);
        assertThat(onW2.status()).isEqualTo(201);
        assertThat(leases.readKeyValuesToList())
                .extracting(kv -> kv.key)
                .containsExactly("w-1\u0000build-1", "w-2\u0000build-1");
        assertThat(singleRow(W1).getExtension("actor")).isEqualTo("agent:sub-a");
        assertThat(singleRow(W2).getExtension("actor")).isEqualTo("agent:sub-b");
    }

    @Test
    void aRestartedAppResumesWithTheSameLeases() {
        publish(W1, "build-1");
        publish(W1, "build-2");
        send(command(W1, A, "claim", "{\"subject\":\"build-1\",\"lease_duration_seconds\":30}", false));
        List<KeyValue<String, LeaseState>> table =
                changelog(LeaseTopology.LEASE_STORE, SERDES.states().deserializer());
        List<KeyValue<String, String>> deadlines = changelog(LeaseTopology.DEADLINE_STORE, new StringDeserializer());
        driver.close();

        // The test driver wipes its state directory on close and never restores from a changelog, so the restart
        // replays the changelog into the new driver's stores, which is what Kafka Streams does on a restart.
        startDriver(T0.plusSeconds(5));
        restore(LeaseTopology.LEASE_STORE, table);
        restore(LeaseTopology.DEADLINE_STORE, deadlines);

        LeaseReply held = send(command(W1, B, "claim", "{\"subject\":\"build-1\"}", false));
        assertThat(held.status()).isEqualTo(409);
        assertThat(held.body().get("holder").asText()).isEqualTo("sub:sub-a");
        assertThat(send(command(W1, B, "claim", "{\"subject\":\"build-2\"}", false))
                        .status())
                .as("the published index came back too")
                .isEqualTo(201);
        drainOutputs(W1);
        driver.advanceWallClockTime(Duration.ofSeconds(26));
        assertThat(payload(singleRow(W1)).get("holder").asText()).isEqualTo("sub:sub-a");
    }

    @Test
    void aCommandOnAnotherKeyIsRefusedRatherThanDecidedByTheWrongTask() {
        publish(W1, "build-1");
        LeaseCommand claim = command(W1, A, "claim", "{\"subject\":\"build-1\"}", false);

        commands.pipeInput(LeaseCommand.key(W2, "build-1"), claim);

        LeaseReply reply = replies.readValue();
        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.body().get("code").asText()).isEqualTo("INVALID");
        assertThat(leaseState(W1, "build-1").lease()).isNull();
        assertThat(leases.isEmpty()).isTrue();
    }

    @Test
    void commandsAndPublishedMarksMeetInOneSubtopology() {
        TopologyDescription description = LeaseTopology.build(LeaseTopology.Topics.DEFAULT.withPartitions(6), SERDES)
                .describe();

        TopologyDescription.Subtopology deciding = description.subtopologies().stream()
                .filter(s -> s.nodes().stream().anyMatch(n -> n.name().equals("decide")))
                .findFirst()
                .orElseThrow();
        assertThat(deciding.nodes())
                .filteredOn(n -> n instanceof TopologyDescription.Source)
                .flatExtracting(n -> ((TopologyDescription.Source) n).topicSet())
                .containsExactlyInAnyOrder(LeaseTopology.COMMANDS, LeaseTopology.SUBJECTS);
    }

    private void startDriver(Instant wallClock) {
        java.util.Properties props = new java.util.Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        driver = new TopologyTestDriver(LeaseTopology.build(LeaseTopology.Topics.DEFAULT, SERDES), props, wallClock);
        commands = driver.createInputTopic(
                LeaseTopology.COMMANDS,
                new StringSerializer(),
                SERDES.commands().serializer());
        replies = driver.createOutputTopic(
                LeaseTopology.REPLIES,
                new StringDeserializer(),
                SERDES.replies().deserializer());
        leases = driver.createOutputTopic(
                LeaseTopology.LEASES, new StringDeserializer(), SERDES.leases().deserializer());
        logs.clear();
    }

    /** A command built the way the gateway builds one: from the request body, the monitor and the subscription. */
    private LeaseCommand command(
            String monitorId, String subscriptionId, String action, String body, boolean published) {
        Monitor monitor = monitors.computeIfAbsent(
                monitorId,
                id -> MonitorDefinitions.create(
                                id,
                                (ObjectNode) Json.read("{\"owner\":\"human:alice\",\"horizon\":\"minute\"}"
                                        .getBytes(StandardCharsets.UTF_8)),
                                T0,
                                false)
                        .monitor());
        Subscription subscription = new Subscription(
                subscriptionId,
                monitorId,
                "agent:" + subscriptionId,
                Json.object(),
                List.of("observe", "act"),
                "none",
                "pull",
                null,
                null,
                "2026-11-29T18:00:00.000Z",
                true,
                "hash");
        return LeaseCommand.fromRequest(
                io.monitorbackbone.protocol.request.LeaseCall.parse(
                        action, (ObjectNode) Json.read(body.getBytes(StandardCharsets.UTF_8))),
                monitor,
                subscription,
                LeaseCommand.DEFAULT_DELIVERY_COUNT_LIMIT,
                UUID.randomUUID().toString(),
                published);
    }

    /** Sends one command and returns its reply, checking that exactly one reply came back under the request id. */
    private LeaseReply send(LeaseCommand command) {
        commands.pipeInput(command.key(), command);
        List<TestRecord<String, LeaseReply>> answers = replies.readRecordsToList();
        assertThat(answers).singleElement().satisfies(r -> assertThat(r.key()).isEqualTo(command.requestId()));
        return answers.get(0).value();
    }

    /** A user observation, written the way the gateway writes one. */
    private void publish(String monitorId, String subject) {
        publishAs(monitorId, subject, "demo.build");
    }

    /** What the gateway does on a publish: a mark for a producer's subject, none for the server's own rows. */
    private void publishAs(String monitorId, String subject, String type) {
        if (type.startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX)) {
            return;
        }
        driver.createInputTopic(LeaseTopology.SUBJECTS, new StringSerializer(), new StringSerializer())
                .pipeInput(new TestRecord<>(LeaseCommand.key(monitorId, subject), "minute", null, T0));
    }

    private TestOutputTopic<String, byte[]> log(String monitorId) {
        return logs.computeIfAbsent(
                monitorId,
                id -> driver.createOutputTopic(
                        LeaseTopology.OBS_PREFIX + id, new StringDeserializer(), new ByteArrayDeserializer()));
    }

    private List<CloudEvent> rows(String monitorId) {
        return log(monitorId).readRecordsToList().stream()
                .map(r ->
                        KafkaMessageFactory.createReader(r.headers(), r.value()).toEvent())
                .toList();
    }

    private CloudEvent singleRow(String monitorId) {
        List<CloudEvent> rows = rows(monitorId);
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    private static JsonNode payload(CloudEvent event) {
        return Json.read(event.getData().toBytes()).get("payload");
    }

    private void drainOutputs(String monitorId) {
        log(monitorId).readRecordsToList();
        leases.readRecordsToList();
    }

    private LeaseState leaseState(String monitorId, String subject) {
        KeyValueStore<String, LeaseState> store = driver.getKeyValueStore(LeaseTopology.LEASE_STORE);
        return store.get(LeaseCommand.key(monitorId, subject));
    }

    private <V> List<KeyValue<String, V>> changelog(
            String store, org.apache.kafka.common.serialization.Deserializer<V> values) {
        return driver.createOutputTopic(APP + "-" + store + "-changelog", new StringDeserializer(), values)
                .readKeyValuesToList();
    }

    private <V> void restore(String storeName, List<KeyValue<String, V>> changelog) {
        KeyValueStore<String, V> store = driver.getKeyValueStore(storeName);
        for (KeyValue<String, V> entry : changelog) {
            if (entry.value == null) {
                store.delete(entry.key);
            } else {
                store.put(entry.key, entry.value);
            }
        }
    }
}
