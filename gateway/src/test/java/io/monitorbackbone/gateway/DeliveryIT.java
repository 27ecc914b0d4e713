package io.monitorbackbone.gateway;

import static io.monitorbackbone.gateway.Walk.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A reader's side: filters, re-keying, seek, renew, retire, the mute sweep, SSE, retention and admin. */
class DeliveryIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    private long publish(Walk.Monitor m, String type, String subject) {
        Http.Response r = http.post(
                "/mp/v0/monitors/" + m.id() + "/observations",
                "{\"type\":\"" + type + "\",\"subject\":\"" + subject + "\"}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("seq").asLong();
    }

    private Walk.Reader subscribe(Walk.Monitor m, String body, String bearer) {
        Http.Response r =
                http.post("/mp/v0/subscriptions", "{\"monitor\":\"" + m.id() + "\"," + body.substring(1), bearer);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Walk.Reader(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private static List<String> ids(JsonNode pull) {
        List<String> out = new ArrayList<>();
        pull.get("observations").forEach(o -> out.add(o.get("id").asText()));
        return out;
    }

    @Test
    void c07ANarrowFilterSeesTheSameHeadAndItsOwnLag() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"types\":[\"demo.a\",\"demo.b\"]}");
        publish(m, "demo.a", "1");
        publish(m, "demo.b", "2");
        publish(m, "demo.a", "3");
        Walk.Reader narrow =
                subscribe(m, "{\"subscriber\":\"agent:narrow\",\"filter\":{\"types\":[\"demo.a\"]}}", null);
        Walk.Reader wide = subscribe(m, "{\"subscriber\":\"agent:wide\"}", null);

        JsonNode n = walk.pull(narrow, "").json();
        JsonNode w = walk.pull(wide, "").json();

        assertThat(n.get("head")).isEqualTo(w.get("head"));
        assertThat(ids(n)).containsExactly("2", "4");
        assertThat(n.get("lag").asLong()).isEqualTo(2);
        assertThat(w.get("lag").asLong()).isEqualTo(6);
        walk.ack(narrow, n.get("next").asLong());
        assertThat(walk.pull(narrow, "").json().get("lag").asLong()).isZero();
    }

    @Test
    void c08AnInlineFilterNarrowsAndNeverWidens() {
        Walk.Monitor m = walk.monitorWith(
                "{\"visibility\":\"public\",\"types\":[\"demo.note\",\"demo.build\",\"other.thing\"]}");
        publish(m, "demo.note", "n");
        publish(m, "demo.build", "b");
        publish(m, "other.thing", "o");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:r\",\"filter\":{\"types\":[\"demo.*\"]}}", null);

        JsonNode narrower = walk.pull(reader, "?types=demo.note").json();
        Http.Response outside =
                http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull?types=other.thing", reader.token());
        JsonNode stored = walk.pull(reader, "").json();

        assertThat(narrower.get("observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.note");
        assertRefused(outside, 400, "INVALID_FILTER"); // InlineFilterIT has the rule in full
        assertThat(stored.get("observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.note", "demo.build");
    }

    @Test
    void aLagPastTheCountBoundSaysItIsALowerBoundAndBecomesExactNearTheHead() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        for (int i = 0; i < 1_100; i++) {
            publish(m, "demo.note", "n-" + i);
        }
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:behind\"}", null);

        JsonNode far = walk.pull(reader, "?limit=10").json();
        walk.ack(reader, 1_050);
        JsonNode near = walk.pull(reader, "?limit=10").json();

        assertThat(far.get("lag_bounded").asBoolean()).isTrue();
        assertThat(far.get("lag").asLong()).isGreaterThanOrEqualTo(1_000).isLessThan(1_102);
        assertThat(near.has("lag_bounded")).isFalse();
        assertThat(near.get("lag").asLong()).isEqualTo(near.get("head").asLong() - 1_050 + 1);
    }

    @Test
    void aReaderThatAsksForLargePagesReadsPastMaxLimitAndOneThatDoesNotIsClampedTo200() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < 1_000; i++) {
            items.append(i == 0 ? "" : ",")
                    .append("{\"type\":\"demo.note\",\"subject\":\"n-")
                    .append(i)
                    .append("\"}");
        }
        for (int b = 0; b < 2; b++) {
            Http.Response r = http.post(
                    "/mp/v0/monitors/" + m.id() + "/observations/batch",
                    "{\"observations\":[" + items + "]}",
                    m.ownerToken());
            assertThat(r.json().get("accepted").asInt()).as(r.body()).isEqualTo(1_000);
        }
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:drain\"}", null);
        JsonNode discover = http.get("/mp/v0/discover", null).json();

        JsonNode large = walk.pull(reader, "?limit=5000&large_pages=true").json();
        JsonNode plain = walk.pull(reader, "?limit=5000").json();
        JsonNode asked =
                walk.pull(reader, "?cursor=1500&limit=300&large_pages=true").json();

        assertThat(discover.at("/capabilities/extensions/io.monitorbackbone~1large-pages/max_limit")
                        .asInt())
                .isEqualTo(5_000);
        assertThat(discover.at("/limits/max_limit").asInt()).isEqualTo(200);
        assertThat(large.get("observations")).hasSize(2_002); // the configured row, 2,000 notes, the subscribed row
        assertThat(large.get("next").asLong()).isEqualTo(large.get("head").asLong() + 1);
        assertThat(large.get("observations"))
                .extracting(o -> o.get("id").asLong())
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(plain.get("observations")).hasSize(200);
        assertThat(asked.get("observations")).hasSize(300);
        assertThat(asked.at("/observations/0/id").asLong()).isEqualTo(1_500);
    }

    @Test
    void c23AndC27EveryEndpointRefusesAWrongOrMissingTokenAndANonIntegerCursor() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:t\"}", null);
        String base = "/mp/v0/subscriptions/" + reader.subscription();

        for (String bearer : new String[] {null, "wrong-token"}) {
            assertRefused(http.get(base + "/pull", bearer), 401, "UNAUTHORIZED");
            assertRefused(http.get(base + "/stream", bearer), 401, "UNAUTHORIZED");
            assertRefused(http.post(base + "/ack", "{\"cursor\":1}", bearer), 401, "UNAUTHORIZED");
            assertRefused(http.post(base + "/seek", "{\"cursor\":1,\"reason\":\"x\"}", bearer), 401, "UNAUTHORIZED");
            assertRefused(http.post(base + "/renew", "{}", bearer), 401, "UNAUTHORIZED");
            assertRefused(http.post(base + "/retire", "{}", bearer), 401, "UNAUTHORIZED");
        }
        assertRefused(http.get(base + "/pull?cursor=1.5", reader.token()), 400, "INVALID");
        assertRefused(http.post(base + "/ack", "{\"cursor\":1.5}", reader.token()), 400, "INVALID");
        assertRefused(http.post(base + "/ack", "{\"cursor\":-1}", reader.token()), 400, "INVALID");
        assertThat(walk.pull(reader, "?cursor=1").json().get("observations")).isNotEmpty();
        assertThat(walk.ack(reader, 1).json().get("cursor").asLong()).isEqualTo(1);
    }

    @Test
    void c32ReSubscribingUnderSomeoneElsesNameIsRefusedAndTheHolderKeepsWorking() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
        Walk.Reader holder = subscribe(m, "{\"subscriber\":\"agent:holder\"}", null);
        walk.ack(holder, 2);

        Http.Response impostor = http.post(
                "/mp/v0/subscriptions", "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:holder\"}", null);
        assertRefused(impostor, 401, "UNAUTHORIZED");
        assertThat(impostor.json().get("existing").asBoolean()).isTrue();
        assertThat(walk.pull(holder, "").json().get("cursor").asLong())
                .as("the holder keeps working")
                .isEqualTo(2);

        Walk.Reader rekeyed = subscribe(m, "{\"subscriber\":\"agent:holder\"}", holder.token());
        assertThat(rekeyed.subscription()).isEqualTo(holder.subscription());
        assertThat(walk.pull(rekeyed, "").json().get("cursor").asLong()).isEqualTo(2);
        assertRefused(
                http.get("/mp/v0/subscriptions/" + holder.subscription() + "/pull", holder.token()),
                401,
                "UNAUTHORIZED");
        assertRefused(
                http.post(
                        "/mp/v0/subscriptions",
                        "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:holder\",\"from\":1}",
                        rekeyed.token()),
                409,
                "CURSOR_BACKWARDS");

        Walk.Reader widened = subscribe(
                m, "{\"subscriber\":\"agent:holder\",\"capabilities\":[\"observe\",\"act\"]}", m.ownerToken());
        assertThat(widened.subscription()).isEqualTo(holder.subscription());
        assertThat(http.post("/mp/v0/subscriptions/" + widened.subscription() + "/renew", "{}", widened.token())
                        .json()
                        .at("/subscription/capabilities")
                        .toString())
                .contains("act");
    }

    @Test
    void seekNeedsAReasonIsLoggedAndIsTheOnlyWayBack() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        publish(m, "demo.note", "a");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:seeker\"}", null);
        walk.pull(reader, "");
        walk.ack(reader, 4);

        Http.Response noReason =
                http.post("/mp/v0/subscriptions/" + reader.subscription() + "/seek", "{\"cursor\":2}", reader.token());
        Http.Response seek = http.post(
                "/mp/v0/subscriptions/" + reader.subscription() + "/seek",
                "{\"cursor\":2,\"reason\":\"reprocess\"}",
                reader.token());
        JsonNode after = walk.pull(reader, "").json();

        assertRefused(noReason, 400, "INVALID");
        assertThat(seek.status()).isEqualTo(200);
        assertThat(seek.json().get("cursor").asLong()).isEqualTo(2);
        assertThat(after.get("cursor").asLong()).isEqualTo(2);
        assertThat(after.get("observations").get(0).get("id").asText()).isEqualTo("2");
        assertThat(after.get("observations").get(0).get("redelivered").asBoolean())
                .isTrue();
        JsonNode logged =
                after.get("observations").get(after.get("observations").size() - 1);
        assertThat(logged.get("type").asText()).isEqualTo("ai.mentu.monitor.subscribed");
        assertThat(logged.at("/data/payload/seek/from").asLong()).isEqualTo(4);
        assertThat(logged.at("/data/payload/seek/to").asLong()).isEqualTo(2);
        assertThat(logged.at("/data/payload/reason").asText()).isEqualTo("reprocess");
    }

    /** Each record's Kafka timestamp (the one offsets-for-times indexes) by seq, read with a plain consumer. */
    private static Map<Long, Instant> timestamps(String monitorId) {
        Map<String, Object> config = Map.of(
                "bootstrap.servers",
                io.monitorbackbone.testsupport.TestKafka.bootstrapServers(),
                "key.deserializer",
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName(),
                "value.deserializer",
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(config)) {
            var tp = new org.apache.kafka.common.TopicPartition(Topics.obs(monitorId), 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            Map<Long, Instant> out = new java.util.HashMap<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                consumer.poll(Duration.ofMillis(200))
                        .forEach(r -> out.put(r.offset() + 1, Instant.ofEpochMilli(r.timestamp())));
                return consumer.position(tp) >= end;
            });
            return out;
        }
    }

    /** Publishes once this machine's clock is past the previous record's timestamp, so the two differ by 3 ms or more. */
    private long publishLater(Walk.Monitor m, String subject, long previousSeq) {
        Instant previous = timestamps(m.id()).get(previousSeq);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> Instant.now().isAfter(previous.plusMillis(2)));
        return publish(m, "demo.note", subject);
    }

    private Http.Response seek(Walk.Reader reader, String body) {
        return http.post("/mp/v0/subscriptions/" + reader.subscription() + "/seek", body, reader.token());
    }

    @Test
    void aSeekByTimeLandsOnTheFirstRecordAppendedAtOrAfterItOverRestAndJsonRpc() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        long a = publish(m, "demo.note", "a");
        long b = publishLater(m, "b", a);
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:timer\"}", null);
        walk.ack(reader, b + 2);
        Map<Long, Instant> at = timestamps(m.id());
        assertThat(at.get(b)).isAfter(at.get(a).plusMillis(2));

        Http.Response onB = seek(reader, "{\"time\":\"" + at.get(b) + "\",\"reason\":\"since b\"}");
        JsonNode fromB = walk.pull(reader, "").json();
        Http.Response between = seek(reader, "{\"time\":\"" + at.get(a).plusMillis(1) + "\",\"reason\":\"after a\"}");
        Http.Response onA = seek(reader, "{\"time\":\"" + at.get(a) + "\",\"reason\":\"since a\"}");
        String aWithOffset = at.get(a).atOffset(java.time.ZoneOffset.ofHours(2)).toString();
        JsonNode rpc = http.post(
                        "/mp/v0/rpc",
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"feeds/seek\",\"params\":{\"subscription\":\""
                                + reader.subscription() + "\",\"time\":\"" + aWithOffset
                                + "\",\"reason\":\"over json-rpc\"}}",
                        reader.token())
                .json();
        long head = http.get("/mp/v0/monitors/" + m.id() + "/state", null)
                .json()
                .get("head")
                .asLong();
        Http.Response future = seek(reader, "{\"time\":\"2999-01-01T00:00:00Z\",\"reason\":\"only new ones\"}");
        Http.Response subscribed = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:timed\",\"from\":{\"time\":\"" + at.get(b)
                        + "\"}}",
                null);

        assertThat(onB.status()).as(onB.body()).isEqualTo(200);
        assertThat(onB.json().get("cursor").asLong()).isEqualTo(b);
        assertThat(fromB.get("observations").get(0).get("id").asLong()).isEqualTo(b);
        JsonNode logged =
                fromB.get("observations").get(fromB.get("observations").size() - 1);
        assertThat(logged.get("type").asText()).isEqualTo("ai.mentu.monitor.subscribed");
        assertThat(logged.at("/data/payload/seek/time").asText())
                .isEqualTo(at.get(b).toString());
        assertThat(logged.at("/data/payload/seek/to").asLong()).isEqualTo(b);
        assertThat(logged.at("/data/payload/reason").asText()).isEqualTo("since b");
        assertThat(between.json().get("cursor").asLong()).as(between.body()).isEqualTo(b);
        assertThat(onA.json().get("cursor").asLong()).as(onA.body()).isEqualTo(a);
        assertThat(rpc.at("/result/cursor").asLong()).as(rpc.toString()).isEqualTo(a);
        assertThat(future.json().get("cursor").asLong()).as(future.body()).isEqualTo(head + 1);
        assertThat(subscribed.status()).as(subscribed.body()).isEqualTo(201);
        assertThat(subscribed.json().at("/subscription/cursor").asLong()).isEqualTo(b);
    }

    @Test
    void aMalformedTimeOrBothACursorAndATimeAreRefusedAsInvalid() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:badtime\"}", null);

        for (String time :
                List.of("\"2026-12-01 19:30:00\"", "\"2026-12-01T19:30:00\"", "\"an hour ago\"", "1733081400000")) {
            Http.Response r = seek(reader, "{\"time\":" + time + ",\"reason\":\"r\"}");
            assertRefused(r, 400, "INVALID");
            assertThat(r.json().get("field").asText()).isEqualTo("time");
        }
        assertRefused(
                seek(reader, "{\"cursor\":1,\"time\":\"2026-12-01T19:30:00Z\",\"reason\":\"r\"}"), 400, "INVALID");
        assertRefused(
                http.post(
                        "/mp/v0/subscriptions",
                        "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:b2\",\"from\":{\"time\":\"soon\"}}",
                        null),
                400,
                "INVALID");
        JsonNode rpc = http.post(
                        "/mp/v0/rpc",
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"feeds/seek\",\"params\":{\"subscription\":\""
                                + reader.subscription() + "\",\"time\":\"noon\",\"reason\":\"r\"}}",
                        reader.token())
                .json();
        assertThat(rpc.at("/error/data/code").asText()).as(rpc.toString()).isEqualTo("INVALID");
        assertThat(http.get("/mp/v0/discover", null)
                        .json()
                        .at("/capabilities/extensions/io.monitorbackbone~1seek-by-time/fields")
                        .toString())
                .as("discover announces the extension")
                .contains("seek.time", "subscribe.from.time");
    }

    @Test
    void aTimeBeforeTheRetentionFloorIsAnExpiredCursor() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        long a = publish(m, "demo.note", "a");
        long b = publishLater(m, "b", a);
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:floor\"}", null);
        Map<Long, Instant> at = timestamps(m.id());
        Http.Response compacted = http.post(
                "/mp/v0/admin/compact",
                "{\"upto_seq\":" + a + ",\"monitor\":\"" + m.id() + "\"}",
                SharedServer.ADMIN_TOKEN);
        assertThat(compacted.status()).as(compacted.body()).isEqualTo(200);
        assertThat(compacted.json().get("retention_floor").asLong()).isEqualTo(b);

        Http.Response beforeFloor = seek(reader, "{\"time\":\"" + at.get(a) + "\",\"reason\":\"too far back\"}");
        Http.Response onFloor = seek(reader, "{\"time\":\"" + at.get(b) + "\",\"reason\":\"from the floor\"}");
        Walk.Reader late =
                subscribe(m, "{\"subscriber\":\"agent:late\",\"from\":{\"time\":\"" + at.get(a) + "\"}}", null);
        Http.Response latePull = http.get("/mp/v0/subscriptions/" + late.subscription() + "/pull", late.token());

        assertRefused(beforeFloor, 410, "CURSOR_EXPIRED");
        assertThat(beforeFloor.json().get("retention_floor").asLong()).isEqualTo(b);
        assertThat(beforeFloor.json().get("time").asText()).isEqualTo(at.get(a).toString());
        assertThat(onFloor.json().get("cursor").asLong()).as(onFloor.body()).isEqualTo(b);
        assertRefused(latePull, 410, "CURSOR_EXPIRED");
        assertThat(latePull.json().get("retention_floor").asLong()).isEqualTo(b);
    }

    @Test
    void renewRotatesTheTokenAndKeepsEverythingElse() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Reader reader =
                subscribe(m, "{\"subscriber\":\"agent:renew\",\"filter\":{\"types\":[\"ai.mentu.monitor.*\"]}}", null);
        walk.ack(reader, 2);

        Http.Response renewed =
                http.post("/mp/v0/subscriptions/" + reader.subscription() + "/renew", "{}", reader.token());
        String token = renewed.json().get("token").asText();

        assertThat(renewed.status()).isEqualTo(200);
        Schemas.assertValid("subscription", renewed.json().get("subscription"));
        assertThat(token).isNotEqualTo(reader.token());
        assertThat(renewed.json().at("/subscription/cursor").asLong()).isEqualTo(2);
        assertThat(renewed.json().at("/subscription/filter/types/0").asText()).isEqualTo("ai.mentu.monitor.*");
        assertRefused(
                http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull", reader.token()),
                401,
                "UNAUTHORIZED");
        assertThat(http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull", token)
                        .status())
                .isEqualTo(200);
    }

    @Test
    void aRetiredSubscriptionAnswers404WithItsCursorUntilItIsReSubscribed() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:leaving\"}", null);
        walk.ack(reader, 2);
        String base = "/mp/v0/subscriptions/" + reader.subscription();

        Http.Response retired = http.post(base + "/retire", "{\"reason\":\"done for today\"}", reader.token());

        assertThat(retired.status()).isEqualTo(200);
        assertThat(retired.json().get("cursor_kept").asLong()).isEqualTo(2);
        for (Http.Response r : List.of(
                http.get(base + "/pull", reader.token()),
                http.post(base + "/ack", "{\"cursor\":3}", reader.token()),
                http.post(base + "/seek", "{\"cursor\":1,\"reason\":\"x\"}", reader.token()),
                http.post(base + "/renew", "{}", reader.token()),
                http.post(base + "/retire", "{}", reader.token()),
                http.get(base + "/stream", reader.token()))) {
            assertRefused(r, 404, "NOT_FOUND");
            assertThat(r.json().get("retired").asBoolean()).isTrue();
            assertThat(r.json().get("cursor").asLong()).isEqualTo(2);
        }
        Walk.Reader back = subscribe(m, "{\"subscriber\":\"agent:leaving\"}", reader.token());
        JsonNode pulled = walk.pull(back, "").json();
        assertThat(back.subscription()).isEqualTo(reader.subscription());
        assertThat(pulled.get("cursor").asLong()).isEqualTo(2);
        JsonNode will = walk.pull(back, "?cursor=1&types=ai.mentu.monitor.subscription_retired")
                .json()
                .get("observations")
                .get(0);
        assertThat(will.at("/data/payload/reason").asText()).isEqualTo("done for today");
        assertThat(will.at("/data/payload/cursor").asLong()).isEqualTo(2);
    }

    @Test
    void c19TheMuteSweepRetiresASilentSubscriptionOnItsOwnAndTheCursorIsKept() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        publish(m, "demo.note", "a");
        Instant subscribed = Instant.now();
        Walk.Reader mute = subscribe(m, "{\"subscriber\":\"agent:mute\",\"retire_after_mute_seconds\":1}", null);
        walk.ack(mute, 2);

        // The scenario is silence: no request reaches any server for a while.
        await().pollDelay(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(5)).until(() -> true);
        Instant asked = Instant.now();
        Walk.Reader witness = subscribe(
                m,
                "{\"subscriber\":\"agent:witness\",\"filter\":{\"types\":[\"ai.mentu.monitor.subscription_retired\"]}}",
                null);
        JsonNode will =
                walk.pull(witness, "?cursor=1").json().get("observations").get(0);

        assertThat(will.at("/data/payload/reason").asText()).isEqualTo("mute");
        assertThat(will.get("actor").asText()).isEqualTo("system:sweep");
        assertThat(will.at("/data/payload/subscription").asText()).isEqualTo(mute.subscription());
        assertThat(will.at("/data/payload/cursor").asLong()).isEqualTo(2);
        Instant written = Instant.parse(will.get("time").asText());
        assertThat(written).isBefore(asked).isAfter(subscribed.plusSeconds(1));
        assertThat(http.get("/mp/v0/subscriptions/" + mute.subscription() + "/pull", mute.token())
                        .json()
                        .get("retired")
                        .asBoolean())
                .isTrue();
        Walk.Reader back = subscribe(m, "{\"subscriber\":\"agent:mute\"}", mute.token());
        assertThat(walk.pull(back, "").json().get("cursor").asLong()).isEqualTo(2);
    }

    @Test
    void aSseStreamDeliversResumesAfterLastEventIdAndNeverCommits() throws Exception {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        publish(m, "demo.note", "a");
        publish(m, "demo.note", "b");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:sse\"}", null);

        List<String> first = sse(reader, null, 4);
        List<String> resumed = sse(reader, "2", 2);

        assertThat(first.get(0)).isEqualTo("retry: 3000");
        assertThat(first).contains("id: 1", "id: 2", "id: 3", "id: 4", "event: observation");
        assertThat(first.stream()
                        .filter(l -> l.startsWith("data: "))
                        .findFirst()
                        .orElseThrow())
                .contains("\"sequence\":\"00000000000000000001\"");
        assertThat(resumed.stream().filter(l -> l.startsWith("id: ")).toList()).containsExactly("id: 3", "id: 4");
        assertThat(walk.pull(reader, "").json().get("cursor").asLong()).isZero();
        assertThat(walk.pull(reader, "").json().get("observations").get(0).has("redelivered"))
                .as("a stream marks nothing delivered; the first pull above did")
                .isTrue();
    }

    @Test
    void anIdleSseStreamSendsHeartbeats() throws Exception {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:idle\"}", null);
        walk.ack(reader, 3);

        List<String> lines = sseUntil(reader, l -> l.equals("event: heartbeat"), Duration.ofSeconds(15));

        assertThat(lines).contains("event: heartbeat");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("event: heartbeat");
    }

    @Test
    void c17CompactionThenExpiryThenRelist() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        for (int i = 0; i < 5; i++) {
            publish(m, "demo.note", "n-" + i);
        }
        Walk.Reader strict = subscribe(m, "{\"subscriber\":\"agent:strict\"}", null);
        Walk.Reader earliest = subscribe(m, "{\"subscriber\":\"agent:early\",\"reset_policy\":\"earliest\"}", null);
        Walk.Reader latest = subscribe(m, "{\"subscriber\":\"agent:late\",\"reset_policy\":\"latest\"}", null);

        Http.Response compacted = http.post(
                "/mp/v0/admin/compact", "{\"upto_seq\":4,\"monitor\":\"" + m.id() + "\"}", SharedServer.ADMIN_TOKEN);
        Http.Response expired = http.get("/mp/v0/subscriptions/" + strict.subscription() + "/pull", strict.token());
        Http.Response replayBelow =
                http.get("/mp/v0/subscriptions/" + earliest.subscription() + "/pull?cursor=2", earliest.token());
        JsonNode early = walk.pull(earliest, "?limit=200").json();
        JsonNode late = walk.pull(latest, "").json();

        assertThat(compacted.status()).as(compacted.body()).isEqualTo(200);
        assertThat(compacted.json().get("retention_floor").asLong()).isEqualTo(5);
        assertThat(compacted.json().get("compacted").asLong()).isEqualTo(4);
        assertRefused(expired, 410, "CURSOR_EXPIRED");
        assertThat(expired.json().get("retention_floor").asLong()).isEqualTo(5);
        assertThat(expired.json().get("relist").asText()).contains(m.id());
        assertRefused(replayBelow, 410, "CURSOR_EXPIRED");
        assertThat(early.get("observations").get(0).get("id").asText()).isEqualTo("5");
        assertThat(early.get("observations")
                        .get(early.get("observations").size() - 1)
                        .get("type")
                        .asText())
                .isEqualTo("ai.mentu.monitor.bookmark");
        assertThat(late.get("observations"))
                .extracting(o -> o.get("type").asText())
                .contains("ai.mentu.monitor.bookmark");

        Http.Response state =
                http.get("/" + "mp/v0/" + expired.json().get("relist").asText(), null);
        assertThat(state.status()).isEqualTo(200);
        long floor = state.json().get("retention_floor").asLong();
        Http.Response seek = http.post(
                "/mp/v0/subscriptions/" + strict.subscription() + "/seek",
                "{\"cursor\":" + floor + ",\"reason\":\"relist after expiry\"}",
                strict.token());
        JsonNode replay = walk.pull(strict, "?limit=200").json();
        assertThat(seek.status()).isEqualTo(200);
        assertThat(replay.get("observations").get(0).get("id").asLong()).isEqualTo(floor);
        assertThat(replay.get("observations")
                        .get(replay.get("observations").size() - 1)
                        .get("type")
                        .asText())
                .isEqualTo("ai.mentu.monitor.bookmark");
    }

    @Test
    void theAdminSnapshotShowsHashesNeverTokens() {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Reader reader = subscribe(m, "{\"subscriber\":\"agent:snap\"}", null);

        Http.Response snapshot = http.get("/mp/v0/admin/snapshot", SharedServer.ADMIN_TOKEN);
        Http.Response stranger = http.get("/mp/v0/admin/snapshot", m.ownerToken());

        assertThat(snapshot.status()).isEqualTo(200);
        assertThat(snapshot.body())
                .doesNotContain(m.ownerToken())
                .doesNotContain(reader.token())
                .doesNotContain(SharedServer.ADMIN_TOKEN);
        assertThat(snapshot.json().get("monitors")).anySatisfy(x -> {
            assertThat(x.get("id").asText()).isEqualTo(m.id());
            assertThat(x.get("owner_token_hash").asText()).matches("[0-9a-f]{64}");
        });
        assertThat(snapshot.json().get("subscriptions"))
                .anySatisfy(x -> assertThat(x.get("id").asText()).isEqualTo(reader.subscription()));
        assertRefused(stranger, 401, "UNAUTHORIZED");
    }

    @Test
    void perMonitorRetentionBecomesTheTopicsRetention() throws Exception {
        Walk.Monitor kept = walk.monitorWith("{\"visibility\":\"public\"}");
        Walk.Monitor daily = walk.monitorWith("{\"visibility\":\"public\",\"limits\":{\"retention_seconds\":86400}}");

        Http.Response updated = http.post(
                "/mp/v0/monitors/" + daily.id() + "/update",
                "{\"patch\":{\"limits\":{\"retention_seconds\":3600}}}",
                daily.ownerToken());
        Http.Response invalid = http.post(
                "/mp/v0/monitors/" + daily.id() + "/update",
                "{\"patch\":{\"limits\":{\"retention_seconds\":0}}}",
                daily.ownerToken());

        assertThat(updated.status()).as(updated.body()).isEqualTo(200);
        assertThat(updated.json().at("/monitor/limits/retention_seconds").asLong())
                .isEqualTo(3600);
        assertRefused(invalid, 400, "INVALID");
        try (var admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", io.monitorbackbone.testsupport.TestKafka.bootstrapServers()))) {
            var keptTopic = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, Topics.obs(kept.id()));
            var dailyTopic = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, Topics.obs(daily.id()));
            var configs =
                    admin.describeConfigs(List.of(keptTopic, dailyTopic)).all().get(30, TimeUnit.SECONDS);
            assertThat(configs.get(keptTopic).get("retention.ms").value())
                    .as("a monitor's log is kept unless it says otherwise")
                    .isEqualTo("-1");
            assertThat(configs.get(dailyTopic).get("retention.ms").value()).isEqualTo("3600000");
        }
    }

    private List<String> sse(Walk.Reader reader, String lastEventId, int events) throws Exception {
        int[] seen = {0};
        return sseUntil(reader, lastEventId, l -> l.startsWith("id: ") && ++seen[0] == events, Duration.ofSeconds(15));
    }

    private List<String> sseUntil(Walk.Reader reader, java.util.function.Predicate<String> last, Duration timeout)
            throws Exception {
        return sseUntil(reader, null, last, timeout);
    }

    private List<String> sseUntil(
            Walk.Reader reader, String lastEventId, java.util.function.Predicate<String> last, Duration timeout)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        http.base().resolve("/mp/v0/subscriptions/" + reader.subscription() + "/stream"))
                .header("Authorization", "Bearer " + reader.token());
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<Stream<String>> response =
                HttpClient.newHttpClient().send(request.GET().build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        List<String> lines = new ArrayList<>();
        CompletableFuture<Void> read = CompletableFuture.runAsync(() -> {
            for (var it = response.body().iterator(); it.hasNext(); ) {
                String line = it.next();
                if (line.isEmpty()) {
                    continue;
                }
                synchronized (lines) {
                    lines.add(line);
                }
                if (last.test(line)) {
                    return;
                }
            }
        });
        try {
            read.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            response.body().close();
        }
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }
}
