package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Webhooks;
import io.monitorbackbone.protocol.request.CreateMonitor;
import io.monitorbackbone.protocol.request.Subscribe;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

class PushServiceTest {
    private static final PushSettings LOCAL =
            new PushSettings(Set.of("127.0.0.1"), Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1));

    private final World world = new World();
    private final PushService push = new PushService(world.tables, world.log, world.delivery, world.clock);
    private final List<Map<String, String>> sent = new ArrayList<>();
    private final List<JsonNode> bodies = new ArrayList<>();

    {
        world.subscriptions.push(LOCAL);
        push.settings(LOCAL);
    }

    private PushService.Sender answering(IntSupplier status) {
        return (sink, headers, body) -> {
            sent.add(headers);
            bodies.add(Json.read(body));
            return new PushService.Answer(status.getAsInt(), null);
        };
    }

    private String monitor(Integer deliveryCountLimit) {
        ObjectNode body = Json.object();
        body.put("id", "m1");
        body.put("visibility", "public");
        body.putArray("types").add("demo.note");
        if (deliveryCountLimit != null) {
            body.putObject("limits").put("delivery_count_limit", deliveryCountLimit);
        }
        return world.monitors
                .create(CreateMonitor.parse(body), null)
                .body()
                .get("owner_token")
                .asText();
    }

    /** A push subscription from the head with a filter on the published type: {id, token, secret}. */
    private String[] pushTo(String sink) {
        ObjectNode body = Json.object();
        body.put("monitor", "m1");
        body.put("subscriber", "hook:test");
        body.put("protocol", "http");
        body.put("sink", sink);
        body.put("from", "head");
        body.putObject("filter").putArray("types").add("demo.note");
        JsonNode reply =
                world.subscriptions.subscribe(Subscribe.parse(body), null).body();
        return new String[] {
            reply.at("/subscription/id").asText(),
            reply.get("token").asText(),
            reply.get("push_secret").asText()
        };
    }

    /** The payload of the first lease row of m1's log: the push's dead letter. */
    private JsonNode deadLetter() {
        return world.log.records("m1").stream()
                .filter(r -> r.type().equals("ai.mentu.monitor.lease"))
                .map(r -> r.data().get("payload"))
                .findFirst()
                .orElseThrow();
    }

    private long cursor(String id) {
        return world.tables.cursor(id).cursor();
    }

    private Duration run(String id, PushService.Sender sender) {
        return push.run(lane, sender, () -> true);
    }

    private PushService.Lane lane;

    @Test
    void aTwoHundredCommitsEachSignedDeliveryInOrder() {
        String owner = monitor(null);
        String[] s = pushTo("http://127.0.0.1:9/hook");
        lane = new PushService.Lane(s[0]);
        long one = world.publish("m1", owner, "a");
        long two = world.publish("m1", owner, "b");

        Duration next = run(s[0], answering(() -> 204));

        assertThat(next).isNull();
        assertThat(bodies).extracting(b -> b.get("id").asLong()).containsExactly(one, two);
        assertThat(sent).extracting(h -> h.get("webhook-id")).containsExactly(s[0] + "_" + one, s[0] + "_" + two);
        Map<String, String> h = sent.get(0);
        assertThat(h.get("webhook-signature"))
                .isEqualTo(Webhooks.sign(
                        s[2],
                        h.get("webhook-id"),
                        Long.parseLong(h.get("webhook-timestamp")),
                        Json.bytes(bodies.get(0))));
        assertThat(cursor(s[0])).isGreaterThan(two);
    }

    @Test
    void aFailureKeepsTheCursorAndBacksOffThenTheRetryCarriesTheSameId() {
        String owner = monitor(null);
        String[] s = pushTo("http://127.0.0.1:9/hook");
        lane = new PushService.Lane(s[0]);
        long seq = world.publish("m1", owner, "a");

        Duration backoff = run(s[0], answering(() -> 500));
        long whileFailing = cursor(s[0]);
        Duration done = run(s[0], answering(() -> 200));

        assertThat(backoff).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
        assertThat(whileFailing).isLessThanOrEqualTo(seq);
        assertThat(done).isNull();
        assertThat(cursor(s[0])).isGreaterThan(seq);
        assertThat(sent).extracting(h -> h.get("webhook-id")).containsOnly(s[0] + "_" + seq);
        assertThat(bodies.get(1).get("redelivered").asBoolean()).isTrue();
    }

    @Test
    void theDeliveryCountLimitDeadLettersAndThePushGoesOnWithoutPushingItsOwnRow() {
        String owner = monitor(2);
        String[] s = pushTo("http://127.0.0.1:9/hook");
        lane = new PushService.Lane(s[0]);
        long poison = world.publish("m1", owner, "poison");
        PushService.Sender sender = answering(
                () -> bodies.get(bodies.size() - 1).get("subject").asText().equals("poison") ? 500 : 200);

        assertThat(run(s[0], sender)).isNotNull();
        assertThat(run(s[0], sender)).isNull();
        long fine = world.publish("m1", owner, "fine");
        assertThat(run(s[0], sender)).isNull();

        assertThat(bodies).extracting(b -> b.get("id").asLong()).containsExactly(poison, poison, fine);
        JsonNode dead = deadLetter();
        assertThat(dead.get("dead_letter").asBoolean()).isTrue();
        assertThat(dead.get("seq").asLong()).isEqualTo(poison);
        assertThat(dead.get("attempts").asInt()).isEqualTo(2);
        assertThat(dead.get("status").asInt()).isEqualTo(500);
        assertThat(cursor(s[0])).isGreaterThan(fine);
    }

    @Test
    void goneDisablesThePushAndSaysSoOnTheSubscription() {
        String owner = monitor(null);
        String[] s = pushTo("http://127.0.0.1:9/hook");
        lane = new PushService.Lane(s[0]);
        long seq = world.publish("m1", owner, "a");

        assertThat(run(s[0], answering(() -> 410))).isNull();
        world.publish("m1", owner, "b");
        assertThat(run(s[0], answering(() -> 200))).isNull();

        assertThat(sent).hasSize(1);
        assertThat(world.tables.subscription(s[0]).pushes()).isFalse();
        JsonNode served = world.subscriptions.renew(s[0], s[1]).body().get("subscription");
        assertThat(served.at("/push/active").asBoolean()).isFalse();
        assertThat(served.at("/push/disabled/status").asInt()).isEqualTo(410);
        assertThat(served.at("/push/disabled/seq").asLong()).isEqualTo(seq);
        assertThat(served.has("push_secret")).isFalse();
        assertThat(cursor(s[0])).isLessThanOrEqualTo(seq);
    }

    @Test
    void aSinkThatNowResolvesToAPrivateAddressIsSentNothingAndDeadLettersAtTheLimit() throws Exception {
        PushSettings strict =
                new PushSettings(Set.of(), Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(1));
        world.subscriptions.push(strict);
        push.settings(strict);
        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        push.metrics(new Metrics(registry));
        String owner = monitor(2);
        // Public when subscribed (an address literal: the test has no DNS); by the time of the deliveries the resolver,
        // standing in for a name whose records changed, points inside the network.
        String[] s = pushTo("http://93.184.216.34/hook");
        lane = new PushService.Lane(s[0]);
        InetAddress[] now = {InetAddress.getByName("10.0.0.7")};
        push.resolver(host -> now);
        long seq = world.publish("m1", owner, "a");

        assertThat(run(s[0], answering(() -> 200))).as("a backoff").isNotNull();
        assertThat(cursor(s[0])).isLessThanOrEqualTo(seq);
        assertThat(run(s[0], answering(() -> 200))).isNull();

        assertThat(sent).as("nothing is sent to a refused sink").isEmpty();
        JsonNode dead = deadLetter();
        assertThat(dead.get("dead_letter").asBoolean()).isTrue();
        assertThat(dead.get("seq").asLong()).isEqualTo(seq);
        assertThat(dead.toString()).contains("sink refused").contains("10.0.0.7");

        now[0] = InetAddress.getByName("93.184.216.34");
        long next = world.publish("m1", owner, "b");
        assertThat(run(s[0], answering(() -> 200))).isNull();
        assertThat(bodies).extracting(b -> b.get("id").asLong()).containsExactly(next);
        for (String[] outcome :
                new String[][] {{"refused", "1"}, {"dead_lettered", "1"}, {"delivered", "1"}, {"gone", "0"}}) {
            assertThat(registry.get("mp.push")
                            .tag("outcome", outcome[0])
                            .counter()
                            .count())
                    .as(outcome[0])
                    .isEqualTo(Double.parseDouble(outcome[1]));
        }
    }

    @Test
    void aSinkOnAPrivateAddressIsRefusedUnlessAllowed() throws Exception {
        monitor(null);
        world.subscriptions.push(PushSettings.DEFAULT);

        assertThatThrownBy(() -> pushTo("http://127.0.0.1:9/hook"))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID));
        for (String sink : List.of(
                "http://10.0.0.1/",
                "http://192.168.1.1/",
                "http://[::1]/",
                "ftp://example.com/",
                "http://u:p@example.com/")) {
            assertThatThrownBy(() -> PushSettings.DEFAULT.checkSink(sink))
                    .as(sink)
                    .isInstanceOf(ProtocolException.class);
        }
        assertThat(PushSettings.isPublic(InetAddress.getByName("93.184.216.34")))
                .isTrue();
        assertThat(PushSettings.isPublic(InetAddress.getByName("100.64.0.1"))).isFalse();
        assertThat(PushSettings.isPublic(InetAddress.getByName("fd00::1"))).isFalse();
        assertThat(PushSettings.isPublic(InetAddress.getByName("169.254.169.254")))
                .isFalse();
        assertThat(new PushSettings(Set.of("*"), Duration.ZERO, Duration.ZERO, Duration.ZERO)
                        .checkSink("http://10.0.0.1/")
                        .getHost())
                .isEqualTo("10.0.0.1");
    }

    @Test
    void theBackoffDoublesUpToItsCapWithJitter() {
        PushSettings p = new PushSettings(Set.of(), Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO);

        assertThat(p.backoff(1)).isBetween(Duration.ofMillis(500), Duration.ofSeconds(1));
        assertThat(p.backoff(3)).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));
        assertThat(p.backoff(30)).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(8));
        assertThat(p.backoff(1000)).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(8));
    }
}
