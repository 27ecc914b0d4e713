package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 1: bodies nested around the input limit, and records no reader can decode. Whatever the server
 * acknowledged or stored is readable by every reader: a pull from the broker (this server keeps no in-memory tail, so
 * nothing hides a read-back failure), JSON-RPC, the state and the projector's fold.
 */
class DeepJsonIT {
    private static final int LIMIT = Json.MAX_INPUT_NESTING;
    private static ServerProcess server;
    private static Http http;
    private static Walk walk;

    @BeforeAll
    static void start() {
        server = ServerProcess.builder()
                .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                .env("MP_TAIL_CACHE_ENTRIES", "0")
                .start();
        http = new Http(server.baseUri());
        walk = new Walk(http);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** An array nested {@code levels} deep. */
    private static String nested(int levels) {
        return "[".repeat(levels) + "]".repeat(levels);
    }

    private Http.Response lease(Walk.Reader w, String action, String body) {
        return http.post("/mp/v0/subscriptions/" + w.subscription() + "/leases/" + action, body, w.token());
    }

    @Test
    void bodiesAroundTheNestingLimitAreAcceptedAndReadableOrRefused() {
        assertThat(http.get("/mp/v0/discover", null)
                        .json()
                        .at("/limits/max_body_depth")
                        .asInt())
                .isEqualTo(LIMIT);
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
        Walk.Reader worker = subscribe(m, "agent:deep", "[\"observe\",\"act\"]");
        int rejected = 0;
        List<Long> accepted = new ArrayList<>();
        for (int depth = LIMIT - 2; depth <= LIMIT + 2; depth++) {
            boolean fits = depth <= LIMIT;
            String what = "depth " + depth;
            // Each body nests exactly `depth` levels: body, data object, then the array.
            String data = "{\"k\":" + nested(depth - 2) + "}";
            Http.Response published = http.post(
                    "/mp/v0/monitors/" + m.id() + "/observations",
                    "{\"type\":\"com.example.deep\",\"subject\":\"d" + depth + "\",\"data\":" + data + "}",
                    m.ownerToken());
            Http.Response refusedPublish = http.post(
                    "/mp/v0/monitors/" + m.id() + "/observations",
                    "{\"type\":\"com.example.deep\",\"tier\":\"bogus\",\"data\":" + data + "}",
                    m.ownerToken());
            rejected++;
            if (fits) {
                assertThat(published.status()).as(what + " " + published.body()).isEqualTo(201);
                accepted.add(published.json().get("seq").asLong());
                Walk.assertRefused(refusedPublish, 400, "UNKNOWN_VOCABULARY");
            } else {
                Walk.assertRefused(published, 400, "INVALID");
                assertThat(published.json().get("max_depth").asInt()).isEqualTo(LIMIT);
                rejected++;
                Walk.assertRefused(refusedPublish, 400, "INVALID");
            }
            assertThat(refusedPublish.json().get("rejected_seq").asLong())
                    .as(what)
                    .isPositive();

            // Lease evidence is stored inside the lease row's data.payload.
            String evidence = ",\"outcome\":\"done\",\"evidence\":" + nested(depth - 1) + "}";
            if (fits) {
                Http.Response claimed = lease(worker, "claim", "{\"subject\":\"d" + depth + "\"}");
                assertThat(claimed.status()).as(what + " " + claimed.body()).isEqualTo(201);
                Http.Response completed = lease(worker, "complete", "{\"subject\":\"d" + depth + "\"" + evidence);
                assertThat(completed.status()).as(what + " " + completed.body()).isEqualTo(200);
            } else {
                Walk.assertRefused(
                        lease(worker, "complete", "{\"subject\":\"d" + LIMIT + "\"" + evidence), 400, "INVALID");
            }
        }
        long head = lastSeq(m);
        int expectedRejected = rejected;

        // Read back from the broker: every record of the partition (lease rows are written in transactions, whose
        // markers take offsets, so seqs skip), none left out, the deep ones intact.
        List<Long> records = recordSeqs(m);
        assertThat(records.get(records.size() - 1)).isEqualTo(head);
        List<JsonNode> rows = pullAll(worker, head);
        assertThat(rows).extracting(o -> o.get("id").asLong()).containsExactlyElementsOf(records);
        for (long seq : accepted) {
            JsonNode o = rows.get(records.indexOf(seq));
            assertThat(depth(o.get("data"))).isGreaterThanOrEqualTo(LIMIT - 3);
        }
        assertThat(rows)
                .filteredOn(o -> Vocabulary.REJECTED.equals(o.get("type").asText()))
                .hasSize(expectedRejected);
        assertThat(rows)
                .filteredOn(o -> Vocabulary.LEASE.equals(o.get("type").asText())
                        && o.at("/data/payload/action").asText().equals("complete"))
                .hasSize(3);
        assertThat(rows)
                .noneMatch(o -> Vocabulary.UNDECODABLE.equals(o.get("type").asText()));
        // Stepping one row at a time with ?cursor= never stalls, and JSON-RPC serves the same page.
        for (long seq : records) {
            JsonNode page = walk.pull(worker, "?limit=1&cursor=" + seq).json();
            assertThat(page.get("observations")).as("seq " + seq).hasSize(1);
            assertThat(page.get("observations").get(0).get("id").asLong()).isEqualTo(seq);
            assertThat(page.get("next").asLong()).isEqualTo(seq + 1);
        }
        Http.Response rpc = http.post(
                "/mp/v0/rpc",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"feeds/pull\",\"params\":{\"subscription\":\""
                        + worker.subscription() + "\",\"cursor\":1,\"limit\":200}}",
                worker.token());
        assertThat(rpc.status()).isEqualTo(200);
        assertThat(rpc.json().at("/result/observations").size())
                .as(rpc.body().substring(0, Math.min(300, rpc.body().length())))
                .isEqualTo(records.size());

        assertHonestState(m, head, records.size(), expectedRejected, 0);
    }

    @Test
    void aRecordNoReaderCanDecodeIsServedAsAnUndecodableRowAtItsSeq() throws Exception {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\"]}");
        Walk.Reader reader = subscribe(m, "agent:reader", "[\"observe\"]");
        walk.publish(m, "before");
        Draft shape = new Draft(
                "com.example.ci.run",
                "foreign",
                "2026-01-01T00:00:00.000Z",
                "measured",
                "probe",
                "reported",
                "minute",
                "probe:x",
                Json.object());
        ProducerRecord<String, byte[]> cloudEvent = ObservationCodec.encode(Topics.obs(m.id()), m.id(), null, shape);
        int tooDeep = Json.MAX_READ_NESTING + 10;
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(
                            Topics.obs(m.id()), "k", "not a cloud event".getBytes(StandardCharsets.UTF_8)))
                    .get();
            raw.send(new ProducerRecord<>(
                            Topics.obs(m.id()),
                            null,
                            "foreign",
                            nested(tooDeep).getBytes(StandardCharsets.UTF_8),
                            cloudEvent.headers()))
                    .get();
        }
        long after = walk.publish(m, "after");
        assertThat(after).isEqualTo(6);

        List<JsonNode> rows = pullAll(reader, after);
        assertThat(recordSeqs(m)).containsExactlyElementsOf(seqs(1, after));
        assertThat(rows).extracting(o -> o.get("id").asLong()).containsExactlyElementsOf(seqs(1, after));
        for (JsonNode o : List.of(rows.get(3), rows.get(4))) {
            assertThat(o.get("type").asText()).isEqualTo(Vocabulary.UNDECODABLE);
            assertThat(o.get("actor").asText()).isEqualTo("system:reader");
            assertThat(o.at("/data/payload/bytes").asInt()).isPositive();
            assertThat(o.at("/data/payload/reason").asText()).isNotBlank();
        }
        assertThat(rows.get(5).get("subject").asText()).isEqualTo("after");
        // A reader stepping one row at a time, acking each, walks past both.
        for (long seq = 1; seq <= after; seq++) {
            JsonNode page = walk.pull(reader, "?limit=1").json();
            assertThat(page.get("observations").get(0).get("id").asLong()).isEqualTo(seq);
            walk.ack(reader, page.get("next").asLong());
        }
        assertHonestState(m, after, after, 0, 2);
    }

    private static Walk.Reader subscribe(Walk.Monitor m, String subscriber, String capabilities) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"" + subscriber + "\",\"capabilities\":" + capabilities
                        + ",\"from\":\"earliest\"}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Walk.Reader(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private static long lastSeq(Walk.Monitor m) {
        return walk.state(m).json().get("head").asLong();
    }

    /** Every row from seq 1 to {@code head}, replayed with {@code ?cursor=}, pages of at most 200. */
    private static List<JsonNode> pullAll(Walk.Reader reader, long head) {
        List<JsonNode> out = new ArrayList<>();
        long cursor = 1;
        while (cursor <= head) {
            JsonNode page = walk.pull(reader, "?limit=200&cursor=" + cursor).json();
            page.get("observations").forEach(out::add);
            assertThat(page.get("next").asLong())
                    .as("a pull from " + cursor + " moves on")
                    .isGreaterThan(cursor);
            cursor = page.get("next").asLong();
        }
        return out;
    }

    /** The seqs of the records in the monitor's partition, read with a plain consumer (committed records only). */
    private static List<Long> recordSeqs(Walk.Monitor m) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        TestKafka.bootstrapServers(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(Topics.obs(m.id()), 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            List<Long> out = new ArrayList<>();
            await("the partition is read to its end")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> {
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                            out.add(r.offset() + 1);
                        }
                        return c.position(tp) >= end;
                    });
            return out;
        }
    }

    private static List<Long> seqs(long from, long to) {
        List<Long> out = new ArrayList<>();
        for (long s = from; s <= to; s++) {
            out.add(s);
        }
        return out;
    }

    private static int depth(JsonNode node) {
        int d = 0;
        for (JsonNode child : node) {
            d = Math.max(d, depth(child));
        }
        return node.isContainerNode() ? d + 1 : 0;
    }

    /** The served state and the projector's own fold both count every record up to the head. */
    private static void assertHonestState(Walk.Monitor m, long head, long records, int rejected, int undecodable) {
        await("the state covers the head").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            JsonNode state = walk.state(m).json();
            assertThat(state.get("head").asLong()).isEqualTo(head);
            assertThat(state.get("as_of_seq").asLong()).isEqualTo(head);
            assertThat(state.at("/counters/observations").asLong()).isEqualTo(records);
            assertThat(state.at("/counters/rejected").asLong()).isEqualTo(rejected);
            assertThat(state.at("/counters/undecodable").asLong()).isEqualTo(undecodable);
        });
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        TestKafka.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "deep-json-" + UUID.randomUUID()),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = c.partitionsFor(Topics.STATE).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            AtomicReference<Aggregate> latest = new AtomicReference<>();
            await("the projector folds every record up to the head")
                    .atMost(Duration.ofSeconds(120))
                    .untilAsserted(() -> {
                        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(500))) {
                            if (m.id().equals(r.key()) && r.value() != null) {
                                latest.set(Aggregate.fromJson(r.value()));
                            }
                        }
                        assertThat(latest.get()).isNotNull();
                        assertThat(latest.get().lastSeq()).isEqualTo(head);
                    });
            assertThat(latest.get().observations()).isEqualTo(records);
            assertThat(latest.get().rejected()).isEqualTo(rejected);
            assertThat(latest.get().undecodable()).isEqualTo(undecodable);
        }
        Schemas.assertValid("state", walk.state(m).json());
    }
}
