package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Monitors whose source is a Kafka topic (docs/adr/0015-bridge.md), against the shared server, which hosts the bridge
 * role by default. Every record is written by a plain Kafka producer that knows nothing of the protocol.
 */
class BridgeIT {
    static final Duration GENEROUS = Duration.ofSeconds(90);
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    static String newTopic(String bootstrap, Map<String, Object> client, int partitions) {
        String topic = "src-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(with(client, AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return topic;
    }

    static Map<String, Object> with(Map<String, Object> client, String key, Object value) {
        Map<String, Object> out = new java.util.HashMap<>(client);
        out.put(key, value);
        return out;
    }

    static KafkaProducer<byte[], byte[]> producer(Map<String, Object> client) {
        return new KafkaProducer<>(client, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static ProducerRecord<byte[], byte[]> record(String topic, String key, String value) {
        return new ProducerRecord<>(topic, utf8(key), utf8(value));
    }

    private static Map<String, Object> plain() {
        return Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers());
    }

    private Walk.Monitor bridged(String topic, String types, String settings) {
        return walk.monitorWith("{\"visibility\":\"public\",\"types\":" + types
                + ",\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:" + topic + "\",\"settings\":" + settings + "}}");
    }

    /** Pulls the whole log from seq 1 until it satisfies the condition; the observations of the last pull. */
    private List<JsonNode> logUntil(Walk.Monitor m, Predicate<List<JsonNode>> condition) {
        Walk.Reader reader = walk.subscribe(m, "agent:bridge-it-" + UUID.randomUUID());
        List<JsonNode> seen = new ArrayList<>();
        await("the monitor's log holds what the source sent")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    seen.clear();
                    long cursor = 1;
                    while (true) {
                        JsonNode page =
                                walk.pull(reader, "?limit=200&cursor=" + cursor).json();
                        page.get("observations").forEach(seen::add);
                        if (page.get("observations").isEmpty()) {
                            break;
                        }
                        cursor = page.get("next").asLong();
                    }
                    return condition.test(seen);
                });
        return seen;
    }

    private static List<JsonNode> ofType(List<JsonNode> log, String type) {
        return log.stream().filter(o -> o.get("type").asText().equals(type)).toList();
    }

    @Test
    void plainJsonBecomesObservationsWithTheMappedTypeSubjectAndProvenance() {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = bridged(
                topic,
                "[\"com.example.order\",\"com.example.refund\"]",
                "{\"format\":\"json\",\"type\":\"/kind\",\"subject\":\"/order\",\"tags\":[\"region\",\"blob\",\"none\"]}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            RecordHeaders headers = new RecordHeaders();
            headers.add("region", utf8("eu"));
            headers.add("blob", new byte[] {(byte) 0xff, 0});
            headers.add("none", null);
            p.send(new ProducerRecord<>(
                    topic,
                    null,
                    utf8("k1"),
                    utf8("{\"kind\":\"com.example.order\",\"order\":\"o-1\",\"total\":12}"),
                    headers));
            p.send(record(topic, "k2", "{\"kind\":\"com.example.refund\",\"order\":\"o-1\",\"total\":-12}"));
            p.send(record(topic, "k3", "{\"kind\":\"com.example.order\",\"order\":\"o-2\",\"total\":5}"));
        }

        List<JsonNode> log = logUntil(
                m,
                l -> ofType(l, "com.example.order").size()
                                + ofType(l, "com.example.refund").size()
                        == 3);

        List<JsonNode> bridged = log.stream()
                .filter(o -> o.get("type").asText().startsWith("com.example."))
                .toList();
        assertThat(bridged).extracting(o -> o.get("subject").asText()).containsExactly("o-1", "o-1", "o-2");
        JsonNode first = bridged.get(0);
        assertThat(first.get("actor").asText()).isEqualTo("probe:kafka/" + topic);
        assertThat(first.get("origin").asText()).isEqualTo("probe");
        assertThat(first.get("tier").asText()).isEqualTo("measured");
        assertThat(first.at("/data/total").asInt()).isEqualTo(12);
        assertThat(first.at("/data/provenance/source_ref").asText()).isEqualTo("kafka:" + topic + "/0/0");
        assertThat(first.at("/data/tags/region").asText()).isEqualTo("eu");
        assertThat(first.at("/data/tags/blob").asText()).isEqualTo("base64:/wA=");
        assertThat(first.at("/data/tags").has("none")).isFalse();
        assertThat(bridged.get(2).at("/data/provenance/source_ref").asText()).isEqualTo("kafka:" + topic + "/0/2");

        // The reader's own `subscribed` row lands before or after the bridged ones, as the bridge's speed has it: the
        // state is checked against the log as it was read.
        JsonNode newest = log.get(log.size() - 1);
        long newestSeq = newest.get("id").asLong();
        await("the state has folded the log up to its newest row")
                .atMost(GENEROUS)
                .until(() -> walk.state(m).json().get("as_of_seq").asLong() >= newestSeq);
        JsonNode state = walk.state(m).json();
        assertThat(state.at("/counters/observations").asLong()).isGreaterThanOrEqualTo(4);
        assertThat(state.at("/last/type").asText()).isEqualTo(newest.get("type").asText());
        assertThat(state.at("/counters/rejected").asLong()).isZero();
    }

    @Test
    void cloudEventsInBinaryAndStructuredModeKeepTypeSubjectTimeAndId() {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = bridged(topic, "[\"com.example.deploy\"]", "{}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            RecordHeaders h = new RecordHeaders();
            h.add("ce_specversion", utf8("1.0"));
            h.add("ce_id", utf8("deploy-41"));
            h.add("ce_source", utf8("/ci/pipeline"));
            h.add("ce_type", utf8("com.example.deploy"));
            h.add("ce_subject", utf8("service-a"));
            h.add("ce_time", utf8("2026-10-01T09:30:00Z"));
            h.add("content-type", utf8("application/json"));
            p.send(new ProducerRecord<>(topic, null, utf8("service-a"), utf8("{\"version\":\"1.2\"}"), h));
            p.send(record(
                    topic,
                    "service-b",
                    "{\"specversion\":\"1.0\",\"id\":\"deploy-42\",\"source\":\"/ci/pipeline\","
                            + "\"type\":\"com.example.deploy\",\"subject\":\"service-b\",\"time\":\"2026-10-02T09:30:00Z\","
                            + "\"datacontenttype\":\"application/json\",\"data\":{\"version\":\"2.0\"}}"));
        }

        List<JsonNode> deploys =
                ofType(logUntil(m, l -> ofType(l, "com.example.deploy").size() == 2), "com.example.deploy");

        assertThat(deploys).extracting(o -> o.get("subject").asText()).containsExactly("service-a", "service-b");
        assertThat(deploys)
                .extracting(o -> java.time.Instant.parse(o.get("time").asText()))
                .containsExactly(
                        java.time.Instant.parse("2026-10-01T09:30:00Z"),
                        java.time.Instant.parse("2026-10-02T09:30:00Z"));
        assertThat(deploys)
                .extracting(o -> o.at("/data/provenance/wasDerivedFrom/0/id").asText())
                .containsExactly("deploy-41", "deploy-42");
        assertThat(deploys).extracting(o -> o.at("/data/version").asText()).containsExactly("1.2", "2.0");
    }

    @Test
    void aSrcClaimIsRejectedAndPoisonGoesToTheDeadLettersWhileBridgingGoesOn() throws Exception {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            RecordHeaders claim = new RecordHeaders();
            claim.add("ce_tier", utf8("src"));
            p.send(new ProducerRecord<>(topic, null, utf8("o-1"), utf8("{\"total\":1}"), claim));
            p.send(new ProducerRecord<>(topic, utf8("o-2"), new byte[] {(byte) 0xc3, 0x28, '{'}));
            p.send(record(topic, "o-3", "{\"total\":3}"));
        }

        List<JsonNode> log = logUntil(m, l -> ofType(l, "com.example.order").size() == 1);

        List<JsonNode> rejected = ofType(log, "ai.mentu.monitor.rejected");
        assertThat(rejected).hasSize(1);
        assertThat(rejected.get(0).at("/data/payload/code").asText()).isEqualTo("TIER_NOT_ASSERTABLE");
        assertThat(rejected.get(0).at("/data/payload/raw/total").asInt()).isEqualTo(1);
        assertThat(rejected.get(0).at("/data/payload/source_ref").asText()).isEqualTo("kafka:" + topic + "/0/0");
        JsonNode order = ofType(log, "com.example.order").get(0);
        assertThat(order.get("subject").asText()).isEqualTo("o-3");
        assertThat(order.get("id").asLong())
                .isGreaterThan(rejected.get(0).get("id").asLong());

        ConsumerRecord<byte[], byte[]> dead = deadLetterOf(m.id());
        assertThat(dead.value()).containsExactly((byte) 0xc3, 0x28, '{');
        assertThat(header(dead, "mp_source_topic")).isEqualTo(topic);
        assertThat(header(dead, "mp_source_partition")).isEqualTo("0");
        assertThat(header(dead, "mp_source_offset")).isEqualTo("1");
        assertThat(header(dead, "mp_error")).contains("not JSON");
    }

    @Test
    void abortedTransactionsOfTheSourceAreNeverBridged() {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        try (KafkaProducer<byte[], byte[]> tx =
                producer(with(plain(), ProducerConfig.TRANSACTIONAL_ID_CONFIG, "src-tx-" + UUID.randomUUID()))) {
            tx.initTransactions();
            tx.beginTransaction();
            tx.send(record(topic, "aborted-1", "{}"));
            tx.send(record(topic, "aborted-2", "{}"));
            // On the broker before the abort: an abort drops what the producer has not sent yet.
            tx.flush();
            tx.abortTransaction();
            tx.beginTransaction();
            tx.send(record(topic, "committed", "{}"));
            tx.commitTransaction();
        }
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "after", "{}"));
        }

        List<JsonNode> orders =
                ofType(logUntil(m, l -> ofType(l, "com.example.order").size() >= 2), "com.example.order");
        assertThat(orders).extracting(o -> o.get("subject").asText()).containsExactly("committed", "after");
    }

    @Test
    void aPausedMonitorResumesWhereItStoppedAndARetiredOneStopsForGood() throws Exception {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 2);
        Walk.Monitor m = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        // A second monitor on the same topic: it shows what the source sent while the first one is retired.
        Walk.Monitor witness = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "before-pause", "{}")).get();
        }
        logUntil(m, l -> ofType(l, "com.example.order").size() == 1);

        Http.Response paused = http.post("/mp/v0/monitors/" + m.id() + "/pause", "{}", m.ownerToken());
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        awaitNoBridge(m.id());
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "while-paused", "{}")).get();
        }
        Http.Response resumed = http.post("/mp/v0/monitors/" + m.id() + "/resume", "{}", m.ownerToken());
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);

        List<JsonNode> log = logUntil(m, l -> ofType(l, "com.example.order").size() == 2);
        JsonNode resumeRow = ofType(log, "ai.mentu.monitor.configured").stream()
                .filter(o -> o.at("/data/payload/action").asText().equals("resume"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no resume row in " + log));
        JsonNode whilePaused = ofType(log, "com.example.order").get(1);
        assertThat(whilePaused.get("subject").asText()).isEqualTo("while-paused");
        assertThat(whilePaused.get("id").asLong())
                .as("bridged only after the resume")
                .isGreaterThan(resumeRow.get("id").asLong());

        Http.Response retired = http.post("/mp/v0/monitors/" + m.id() + "/retire", "{}", m.ownerToken());
        assertThat(retired.status()).as(retired.body()).isEqualTo(200);
        awaitNoBridge(m.id());
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "after-retire", "{}")).get();
        }
        logUntil(
                witness,
                l -> ofType(l, "com.example.order").stream()
                        .anyMatch(o -> o.get("subject").asText().equals("after-retire")));
        List<JsonNode> after = ofType(logUntil(m, l -> true), "com.example.order");
        assertThat(after).extracting(o -> o.get("subject").asText()).containsExactly("before-pause", "while-paused");
    }

    /**
     * A pause while a backlog is bridged, a transaction open over several polls (docs/adr/0015-bridge.md): the stop
     * commits what the transaction holds, and the resume goes on from there. One observation per source record, no
     * ce_id twice, no source offset missing, each key in order.
     */
    @Test
    void aPauseMidBacklogNeitherLosesNorDoublesARecord() throws Exception {
        int total = 60_000;
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 2);
        Walk.Monitor m = walk.monitorWith(BridgedTicks.monitorBody(topic));
        try (BridgedTicks ticks = new BridgedTicks(plain(), topic, m.id(), 20)) {
            ticks.produce(0, total);
            int atPause = ticks.awaitTicks("the bridge has begun", 1);

            Http.Response paused = http.post("/mp/v0/monitors/" + m.id() + "/pause", "{}", m.ownerToken());
            assertThat(paused.status()).as(paused.body()).isEqualTo(200);
            awaitNoBridge(m.id());
            long committed;
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
                committed =
                        admin
                                .listConsumerGroupOffsets("mp-bridge." + m.id())
                                .partitionsToOffsetAndMetadata()
                                .get()
                                .values()
                                .stream()
                                .mapToLong(o -> o.offset())
                                .sum();
            }
            assertThat(committed)
                    .as("the bridge stopped in the middle of the backlog (%d records in the log at the pause)", atPause)
                    .isLessThan(total);

            Http.Response resumed = http.post("/mp/v0/monitors/" + m.id() + "/resume", "{}", m.ownerToken());
            assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
            ticks.awaitTicks("every source record is bridged", total);
            ticks.assertExactlyOnce(total, atPause);
        }
    }

    @Test
    void anUpdatedSourceIsBridgedFromItsNewTopic() {
        String first = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        String second = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = bridged(first, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(first, "from-first", "{}"));
            p.send(record(second, "from-second", "{}"));
        }
        logUntil(m, l -> ofType(l, "com.example.order").size() == 1);
        Http.Response updated = http.post(
                "/mp/v0/monitors/" + m.id() + "/update",
                "{\"patch\":{\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:" + second
                        + "\",\"settings\":{\"format\":\"json\"}}}}",
                m.ownerToken());
        assertThat(updated.status()).as(updated.body()).isEqualTo(200);
        List<JsonNode> orders =
                ofType(logUntil(m, l -> ofType(l, "com.example.order").size() == 2), "com.example.order");
        assertThat(orders).extracting(o -> o.get("subject").asText()).containsExactly("from-first", "from-second");
        assertThat(orders.get(1).get("actor").asText()).isEqualTo("probe:kafka/" + second);
    }

    @Test
    void rulesReactToBridgedRowsByTheirSeqAndABackfillKeepsEachRecordsTime() {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"types\":[\"com.example.order\"],"
                + "\"rules\":[{\"id\":\"audit\",\"then\":\"log\"}],"
                + "\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:" + topic + "\",\"settings\":{\"format\":\"json\"}}}");
        long old = java.time.Instant.parse("2025-03-01T12:00:00Z").toEpochMilli();
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            for (int i = 0; i < 3; i++) {
                p.send(new ProducerRecord<>(topic, null, old + i * 1000L, utf8("o-" + i), utf8("{}")));
            }
        }

        List<JsonNode> log =
                logUntil(m, l -> ofType(l, "io.monitorbackbone.rule.log").size() == 3);

        List<JsonNode> orders = ofType(log, "com.example.order");
        List<JsonNode> reactions = ofType(log, "io.monitorbackbone.rule.log");
        assertThat(orders).hasSize(3);
        assertThat(reactions)
                .extracting(r -> r.at("/data/payload/matched/id").asText())
                .containsExactlyElementsOf(
                        orders.stream().map(o -> o.get("id").asText()).toList());
        assertThat(orders)
                .extracting(o -> java.time.Instant.parse(o.get("time").asText()).toEpochMilli())
                .containsExactly(old, old + 1000L, old + 2000L);
    }

    @Test
    void discoverAnnouncesTheBridge() {
        JsonNode bridge = http.get("/mp/v0/discover", null)
                .json()
                .at("/capabilities/extensions/io.monitorbackbone~1kafka-bridge");
        assertThat(bridge.get("ref_prefix").asText()).isEqualTo("kafka:");
        assertThat(bridge.get("dead_letters").asText()).isEqualTo(Topics.BRIDGE_DEAD_LETTERS);
        assertThat(bridge.get("source_status_type").asText()).isEqualTo(SOURCE_ROW);
        assertThat(bridge.get("lag_path").asText()).isEqualTo("/mp/v0/admin/bridges");
    }

    @Test
    void badSettingsAreRefusedAtCreate() {
        Http.Response src = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + SharedServer.uniqueId("m") + "\",\"types\":[\"com.example.order\"],"
                        + "\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:orders\",\"settings\":{\"tier\":\"src\"}}}",
                null);
        Walk.assertRefused(src, 400, "TIER_NOT_ASSERTABLE");
        Http.Response unknown = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + SharedServer.uniqueId("m") + "\","
                        + "\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:orders\",\"settings\":{\"colour\":1}}}",
                null);
        Walk.assertRefused(unknown, 400, "INVALID");
    }

    @Test
    void bridgedSubjectsAreClaimableThroughLeases() {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"],"
                + "\"default_grant\":[\"observe\",\"act\"],"
                + "\"types\":[\"com.example.job\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:" + topic
                + "\",\"settings\":{\"format\":\"json\"}}}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "job-7", "{}"));
        }
        logUntil(m, l -> ofType(l, "com.example.job").size() == 1);
        // The leases service's own index of the monitor's subjects, which outlives the gateways' tails and the log's
        // retention, has the bridged subject.
        String mark = io.monitorbackbone.protocol.lease.LeaseCommand.key(m.id(), "job-7");
        assertThat(keysOf(Topics.LEASE_SUBJECTS, k -> k.equals(mark))).contains(mark);
        Http.Response sub = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id()
                        + "\",\"subscriber\":\"agent:worker\",\"capabilities\":[\"observe\",\"act\"]}",
                null);
        assertThat(sub.status()).as(sub.body()).isEqualTo(201);
        String id = sub.json().at("/subscription/id").asText();
        String token = sub.json().get("token").asText();
        await("the bridged subject is claimable").atMost(GENEROUS).until(() -> {
            Http.Response claim =
                    http.post("/mp/v0/subscriptions/" + id + "/leases/claim", "{\"subject\":\"job-7\"}", token);
            return claim.status() == 201;
        });
    }

    private JsonNode bridgeOf(Walk.Monitor m) {
        Http.Response r = http.get("/mp/v0/admin/bridges/" + m.id(), SharedServer.ADMIN_TOKEN);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    private JsonNode bridgeUntil(Walk.Monitor m, String what, Predicate<JsonNode> condition) {
        JsonNode[] last = new JsonNode[1];
        await(what).atMost(GENEROUS).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
            last[0] = bridgeOf(m);
            assertThat(condition.test(last[0])).as(last[0].toString()).isTrue();
        });
        return last[0];
    }

    @Test
    void theAdminEndpointSaysEachBridgesLagWhileRecordsWaitAndWhatTheyBecame() throws Exception {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 2);
        Walk.Monitor m = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            RecordHeaders claim = new RecordHeaders();
            claim.add("ce_tier", utf8("src"));
            p.send(new ProducerRecord<>(topic, 0, utf8("o-1"), utf8("{}"), claim))
                    .get();
            p.send(new ProducerRecord<>(topic, 0, utf8("o-2"), new byte[] {(byte) 0xc3, 0x28, '{'}))
                    .get();
            p.send(new ProducerRecord<>(topic, 1, utf8("o-3"), utf8("{}"))).get();
        }
        JsonNode caughtUp = bridgeUntil(
                m,
                "the bridge has read its source to the end",
                b -> b.get("lag").asLong() == 0 && b.get("bridged").asLong() == 1);
        assertThat(caughtUp.get("topic").asText()).isEqualTo(topic);
        assertThat(caughtUp.get("group").asText()).isEqualTo("mp-bridge." + m.id());
        assertThat(caughtUp.get("source").asText()).isEqualTo("present");
        assertThat(caughtUp.get("complete").asBoolean()).isTrue();
        assertThat(caughtUp.get("rejected").asLong()).isEqualTo(1);
        assertThat(caughtUp.get("dead_lettered").asLong()).isEqualTo(1);
        assertThat(caughtUp.at("/partitions/0").toString())
                .isEqualTo("{\"partition\":0,\"end\":2,\"committed\":2,\"lag\":0,\"bridged\":0,\"rejected\":1,"
                        + "\"dead_lettered\":1}");
        assertThat(caughtUp.at("/partitions/1/bridged").asLong()).isEqualTo(1);

        Http.Response paused = http.post("/mp/v0/monitors/" + m.id() + "/pause", "{}", m.ownerToken());
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        awaitNoBridge(m.id());
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            for (int i = 0; i < 3; i++) {
                p.send(new ProducerRecord<>(topic, 1, utf8("w-" + i), utf8("{}")))
                        .get();
            }
        }
        // Computed on request from the source's ends and the group's offsets: no bridge needs to be running.
        JsonNode waiting = bridgeOf(m);
        assertThat(waiting.get("lag").asLong()).as(waiting.toString()).isEqualTo(3);
        assertThat(waiting.at("/partitions/1/lag").asLong()).isEqualTo(3);
        assertThat(waiting.at("/partitions/0/lag").asLong()).isZero();
        assertThat(waiting.at("/live/reason").asText()).isEqualTo("paused");
        Http.Response all = http.get("/mp/v0/admin/bridges", SharedServer.ADMIN_TOKEN);
        assertThat(all.status()).as(all.body()).isEqualTo(200);
        JsonNode listed = null;
        for (JsonNode b : all.json().get("bridges")) {
            if (b.get("monitor").asText().equals(m.id())) {
                listed = b;
            }
        }
        assertThat(listed).as(all.body()).isNotNull();
        assertThat(listed.get("lag").asLong()).isEqualTo(3);

        Http.Response resumed = http.post("/mp/v0/monitors/" + m.id() + "/resume", "{}", m.ownerToken());
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        JsonNode bridged = bridgeUntil(
                m, "the records that waited are bridged", b -> b.get("lag").asLong() == 0);
        assertThat(bridged.get("bridged").asLong()).isEqualTo(4);
        assertThat(bridged.get("rejected").asLong()).isEqualTo(1);
        assertThat(bridged.get("dead_lettered").asLong()).isEqualTo(1);
        assertThat(ofType(logUntil(m, l -> ofType(l, "com.example.order").size() == 4), "com.example.order"))
                .hasSize(4);

        // Every refusal is the protocol's error body.
        Walk.assertRefused(http.get("/mp/v0/admin/bridges", null), 401, "UNAUTHORIZED");
        Walk.assertRefused(http.get("/mp/v0/admin/bridges/" + m.id(), m.ownerToken()), 401, "UNAUTHORIZED");
        Walk.assertRefused(
                http.get("/mp/v0/admin/bridges/no-such-" + m.id(), SharedServer.ADMIN_TOKEN), 404, "NOT_FOUND");
        Walk.Monitor plain = walk.monitorWith("{\"visibility\":\"public\"}");
        Http.Response notBridged = http.get("/mp/v0/admin/bridges/" + plain.id(), SharedServer.ADMIN_TOKEN);
        Walk.assertRefused(notBridged, 404, "NOT_FOUND");
        assertThat(notBridged.json().get("bridged").asBoolean(true)).isFalse();
    }

    private static final String SOURCE_ROW = "io.monitorbackbone.bridge.source";

    private List<String> gaps(Walk.Monitor m) {
        List<String> out = new ArrayList<>();
        walk.state(m).json().at("/confidence/gaps").forEach(g -> out.add(g.asText()));
        return out;
    }

    @Test
    void aMonitorCreatedBeforeItsTopicSaysStaleSourceAndBridgesOnceTheTopicAppears() {
        String topic = "src-" + UUID.randomUUID().toString().substring(0, 8);
        // latest: every record of a topic created after the monitor is one it asked for.
        Walk.Monitor m = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\",\"start\":\"latest\"}");
        // A reader may ask for the source rows alone, as for any of the server's own rows.
        Http.Response sourceReader = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:source-rows\",\"capabilities\":[\"observe\"],"
                        + "\"filter\":{\"types\":[\"" + SOURCE_ROW + "\"]}}",
                null);
        assertThat(sourceReader.status()).as(sourceReader.body()).isEqualTo(201);

        await("the state names the missing source")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> gaps(m).contains("stale_source"));
        JsonNode state = walk.state(m).json();
        assertThat(state.at("/confidence/gap_reasons/stale_source").asText())
                .contains("kafka:" + topic, "does not exist");
        assertThat(state.at("/counters/observations").asLong()).isPositive();
        JsonNode bridge = bridgeOf(m);
        assertThat(bridge.get("source").asText()).isEqualTo("missing");
        assertThat(bridge.get("source_problem").asText()).contains("does not exist");
        assertThat(bridge.get("complete").asBoolean()).isFalse();
        JsonNode missing = ofType(logUntil(m, l -> !ofType(l, SOURCE_ROW).isEmpty()), SOURCE_ROW)
                .get(0);
        assertThat(missing.at("/data/payload/status").asText()).isEqualTo("missing");
        assertThat(missing.at("/data/payload/topic").asText()).isEqualTo(topic);
        assertThat(missing.get("actor").asText()).isEqualTo("system:bridge");
        // The source row is one of the server's own rows: counted and last like a configured row, but no source
        // contact,
        // and no publisher may write one (a forged present would take the gap away).
        assertThat(state.at("/ages/since_last_source_contact_s").isNull()).isTrue();
        Http.Response forged = http.post(
                "/mp/v0/monitors/" + m.id() + "/observations",
                "{\"type\":\"" + SOURCE_ROW + "\",\"data\":{\"payload\":{\"status\":\"present\",\"topic\":\"" + topic
                        + "\"}}}",
                m.ownerToken());
        Walk.assertRefused(forged, 403, "PROVENANCE_CEILING");
        assertThat(forged.json().has("rejected_seq")).as(forged.body()).isTrue();
        assertThat(gaps(m)).contains("stale_source");
        Walk.Reader rows = new Walk.Reader(
                sourceReader.json().at("/subscription/id").asText(),
                sourceReader.json().get("token").asText());
        assertThat(walk.pull(rows, "?cursor=1").json().get("observations"))
                .isNotEmpty()
                .allMatch(o -> o.get("type").asText().equals(SOURCE_ROW));

        createTopic(topic, 2);
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            for (int i = 0; i < 4; i++) {
                p.send(record(topic, "k" + i, "{}"));
            }
        }
        List<JsonNode> orders =
                ofType(logUntil(m, l -> ofType(l, "com.example.order").size() == 4), "com.example.order");
        assertThat(orders).extracting(o -> o.get("subject").asText()).containsExactlyInAnyOrder("k0", "k1", "k2", "k3");
        await("the gap is gone once records flow")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> !gaps(m).contains("stale_source"));
        assertThat(walk.state(m).json().at("/confidence/gap_reasons").has("stale_source"))
                .isFalse();
    }

    @Test
    void aSourceTopicDeletedLaterIsAStaleSourceUntilItIsBackAndRecordsFlow() throws Exception {
        String topic = newTopic(TestKafka.bootstrapServers(), Map.of(), 1);
        Walk.Monitor m = bridged(topic, "[\"com.example.order\"]", "{\"format\":\"json\"}");
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "before", "{}"));
        }
        logUntil(m, l -> ofType(l, "com.example.order").size() == 1);
        assertThat(gaps(m)).doesNotContain("stale_source");

        try (Admin admin = admin()) {
            admin.deleteTopics(List.of(topic)).all().get();
        }
        await("the state names the deleted source")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> gaps(m).contains("stale_source"));
        assertThat(walk.state(m)
                        .json()
                        .at("/confidence/gap_reasons/stale_source")
                        .asText())
                .contains("kafka:" + topic, "does not exist");

        createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> p = producer(plain())) {
            p.send(record(topic, "after", "{}"));
        }
        List<JsonNode> orders =
                ofType(logUntil(m, l -> ofType(l, "com.example.order").size() == 2), "com.example.order");
        assertThat(orders).extracting(o -> o.get("subject").asText()).containsExactly("before", "after");
        await("the gap is gone once the topic is back")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(300))
                .until(() -> !gaps(m).contains("stale_source"));
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()));
    }

    /** Creates the topic, again while a deletion of the same name is still going on. */
    private static void createTopic(String topic, int partitions) {
        try (Admin admin = admin()) {
            await("the topic is created")
                    .atMost(GENEROUS)
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        try {
                            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                                    .all()
                                    .get();
                            return true;
                        } catch (java.util.concurrent.ExecutionException e) {
                            if (e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException) {
                                return false;
                            }
                            throw e;
                        }
                    });
        }
    }

    private void awaitNoBridge(String monitorId) {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
            await("the monitor's bridge has left its group").atMost(GENEROUS).until(() -> {
                var group = admin.describeConsumerGroups(List.of("mp-bridge." + monitorId))
                        .all()
                        .get()
                        .get("mp-bridge." + monitorId);
                return group.members().isEmpty() && group.groupState() != GroupState.PREPARING_REBALANCE;
            });
        }
    }

    private static List<String> keysOf(String topic, Predicate<String> wanted) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        TestKafka.bootstrapServers(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = c.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = c.endOffsets(partitions);
            List<String> found = new ArrayList<>();
            await("read " + topic + " to its end").atMost(GENEROUS).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(300))) {
                    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
                    if (key != null && wanted.test(key)) {
                        found.add(key);
                    }
                }
                return partitions.stream().allMatch(tp -> c.position(tp) >= ends.get(tp));
            });
            return found;
        }
    }

    private static ConsumerRecord<byte[], byte[]> deadLetterOf(String monitorId) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        TestKafka.bootstrapServers(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = c.partitionsFor(Topics.BRIDGE_DEAD_LETTERS).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
            await("the dead letter arrives").atMost(GENEROUS).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.key() != null && new String(r.key(), StandardCharsets.UTF_8).equals(monitorId)) {
                        found.add(r);
                    }
                }
                return !found.isEmpty();
            });
            return found.get(0);
        }
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
