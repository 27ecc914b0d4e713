package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.service.fake.FakeTables;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.request.Ack;
import io.monitorbackbone.protocol.request.RetireSubscription;
import io.monitorbackbone.protocol.request.Seek;
import io.monitorbackbone.protocol.request.Subscribe;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** SubscriptionService over in-memory ports: the rows a subscription's life writes, and who may change it. */
class SubscriptionServiceTest {

    private static ErrorCode code(Throwable t) {
        return ((ProtocolException) t).code();
    }

    @Test
    void aSubscribeWritesTheCursorBeforeTheDefinitionAndLogsASubscribedRow() {
        World w = new World();
        w.monitor("ci");

        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");

        assertThat(w.tables.written())
                .extracting(FakeTables.Row::table)
                .containsSubsequence(Topics.CURSORS, Topics.SUBSCRIPTIONS);
        Subscription stored = w.tables.subscription(sub[0]);
        assertThat(stored.tokenIs(sub[1])).isTrue();
        assertThat(w.tables.cursor(sub[0]).cursor()).isZero();
        assertThat(w.log.at("ci", 2).type()).isEqualTo(Vocabulary.SUBSCRIBED);
        assertThat(w.log.at("ci", 2).data().path("payload").path("subscription").asText())
                .isEqualTo(sub[0]);
    }

    @Test
    void reSubscribingRekeysOnlyWithTheCurrentTokenOrTheOwners() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");

        assertThatThrownBy(() -> w.subscribe("ci", "agent:claude", null, "observe"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));

        String[] again = w.subscribe("ci", "agent:claude", sub[1], "observe");
        assertThat(again[0]).isEqualTo(sub[0]);
        assertThat(w.tables.subscription(sub[0]).tokenIs(sub[1])).isFalse();
        assertThat(w.tables.subscription(sub[0]).tokenIs(again[1])).isTrue();

        String[] byOwner = w.subscribe("ci", "agent:claude", owner, "observe", "act");
        assertThat(w.tables.subscription(byOwner[0]).capabilities()).contains("act");
    }

    @Test
    void aReaderWithoutTheOwnersTokenIsNotGrantedAct() {
        World w = new World();
        w.monitor("ci");

        assertThatThrownBy(() -> w.subscribe("ci", "agent:claude", null, "observe", "act"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CAPABILITY_MISSING));
        assertThat(w.tables.written(Topics.SUBSCRIPTIONS)).isEmpty();
    }

    @Test
    void aSeekNeedsAReasonAndMovesTheCursorBackUnderANewEpoch() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        w.publish("ci", owner, "a");
        w.delivery.ack(sub[0], sub[1], Ack.parse(Json.object().put("cursor", 4)));

        assertThatThrownBy(() -> w.subscriptions.seek(
                        sub[0], sub[1], Seek.parse(Json.object().put("cursor", 1))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.INVALID));

        JsonNode reply = w.subscriptions
                .seek(sub[0], sub[1], Seek.parse(Json.object().put("cursor", 1).put("reason", "replay")))
                .body();

        assertThat(reply.get("cursor").asLong()).isEqualTo(1);
        Cursor cursor = w.tables.cursor(sub[0]);
        assertThat(cursor.cursor()).isEqualTo(1);
        assertThat(cursor.epoch()).isGreaterThan(0);
    }

    @Test
    void aSeekByTimeGoesToTheFirstRecordAppendedAtOrAfterItAndIsLogged() {
        World w = new World();
        String owner = w.monitor("ci"); // seq 1 at T0
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe"); // seq 2 at T0
        w.clock.advance(Duration.ofSeconds(10));
        w.publish("ci", owner, "a"); // seq 3 at T0+10s
        w.clock.advance(Duration.ofSeconds(10));
        w.publish("ci", owner, "b"); // seq 4 at T0+20s

        assertThat(seekTo(w, sub, World.T0.plusSeconds(5)).get("cursor").asLong())
                .isEqualTo(3);
        assertThat(w.log.at("ci", 5).data().at("/payload/seek/time").asText()).isEqualTo("2026-12-01T12:00:05Z");
        assertThat(w.log.at("ci", 5).data().at("/payload/seek/to").asLong()).isEqualTo(3);
        assertThat(w.log.at("ci", 5).data().at("/payload/reason").asText()).isEqualTo("by time");
        assertThat(seekTo(w, sub, World.T0.plusSeconds(10)).get("cursor").asLong())
                .isEqualTo(3);
        assertThat(seekTo(w, sub, World.T0.plusSeconds(10).plusNanos(1))
                        .get("cursor")
                        .asLong())
                .isEqualTo(4);
        assertThat(seekTo(w, sub, World.T0.minusSeconds(3600)).get("cursor").asLong())
                .isEqualTo(1);
        long head = w.log.bounds("ci").head();
        assertThat(seekTo(w, sub, World.T0.plusSeconds(3600)).get("cursor").asLong())
                .isEqualTo(head + 1);
        assertThat(w.tables.cursor(sub[0]).cursor()).isEqualTo(head + 1);
    }

    @Test
    void aTimeBeforeTheRetainedLogIsAnExpiredCursor() {
        World w = new World();
        String owner = w.monitor("ci"); // seq 1 at T0
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe"); // seq 2 at T0
        w.clock.advance(Duration.ofSeconds(10));
        w.publish("ci", owner, "a"); // seq 3 at T0+10s
        w.log.dropBefore("ci", 2); // the floor is seq 3

        assertThatThrownBy(() -> seekTo(w, sub, World.T0.plusSeconds(5)))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CURSOR_EXPIRED))
                .satisfies(e -> assertThat(((ProtocolException) e).details().get("retention_floor"))
                        .isEqualTo(3L));
        assertThat(seekTo(w, sub, World.T0.plusSeconds(10)).get("cursor").asLong())
                .isEqualTo(3);

        ObjectNode body = Json.object().put("monitor", "ci").put("subscriber", "agent:late");
        body.putObject("from").put("time", World.T0.plusSeconds(5).toString());
        JsonNode late = w.subscriptions.subscribe(Subscribe.parse(body), null).body();
        assertThat(late.at("/subscription/cursor").asLong()).isEqualTo(2);
        assertThat(w.log.records("ci")
                        .get(w.log.records("ci").size() - 1)
                        .data()
                        .at("/payload/from/time")
                        .asText())
                .isEqualTo("2026-12-01T12:00:05Z");
    }

    private static JsonNode seekTo(World w, String[] sub, java.time.Instant time) {
        return w.subscriptions
                .seek(sub[0], sub[1], new Seek(0, time, "by time"))
                .body();
    }

    @Test
    void renewingRotatesTheTokenAtOnce() {
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");

        String fresh = w.subscriptions.renew(sub[0], sub[1]).body().get("token").asText();

        assertThatThrownBy(() -> w.subscriptions.renew(sub[0], sub[1]))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThat(w.tables.subscription(sub[0]).tokenIs(fresh)).isTrue();
    }

    /**
     * Another gateway's write of the subscription, not yet read by this one: what this gateway's follower reads when
     * it next catches up with the subscriptions table (once).
     */
    private static void writtenElsewhere(World w, Subscription elsewhere) {
        java.util.concurrent.atomic.AtomicBoolean read = new java.util.concurrent.atomic.AtomicBoolean();
        w.tables.onCatchUp(table -> {
            if (table.equals(Topics.SUBSCRIPTIONS) && read.compareAndSet(false, true)) {
                w.tables.apply(elsewhere);
            }
        });
    }

    @Test
    void aRenewBuildsOnThePushAnotherGatewayDisabledAMomentAgo() {
        // The pushing gateway stored push_disabled; a renew on a gateway that had not read it yet must not write the
        // older record back with a new token, which would start the push again.
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        ObjectNode why = Json.object().put("status", 410).put("seq", 2);
        writtenElsewhere(w, w.tables.subscription(sub[0]).pushDisabled(why));

        JsonNode reply = w.subscriptions.renew(sub[0], sub[1]).body();

        java.util.List<FakeTables.Row> rows = w.tables.written(Topics.SUBSCRIPTIONS);
        Subscription written = (Subscription) rows.get(rows.size() - 1).value();
        assertThat(written.pushDisabled()).isEqualTo(why);
        assertThat(written.tokenIs(reply.get("token").asText())).isTrue();
    }

    @Test
    void aRenewJustAfterARetireOnAnotherGatewayIsRefusedNotAReactivation() {
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        writtenElsewhere(w, w.tables.subscription(sub[0]).retired());
        int before = w.tables.written(Topics.SUBSCRIPTIONS).size();

        assertThatThrownBy(() -> w.subscriptions.renew(sub[0], sub[1]))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(w.tables.written(Topics.SUBSCRIPTIONS)).hasSize(before);
        assertThat(w.tables.subscription(sub[0]).active()).isFalse();
    }

    @Test
    void aRetireWithATokenAnotherGatewayRotatedAMomentAgoIsRefused() {
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        writtenElsewhere(w, w.tables.subscription(sub[0]).rekeyed(io.monitorbackbone.protocol.Tokens.hash("rotated")));
        int before = w.tables.written(Topics.SUBSCRIPTIONS).size();

        assertThatThrownBy(() -> w.subscriptions.retire(
                        sub[0], sub[1], RetireSubscription.parse(Json.object().put("reason", "done"))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThat(w.tables.written(Topics.SUBSCRIPTIONS)).hasSize(before);
        assertThat(w.tables.subscription(sub[0]).active()).isTrue();
    }

    @Test
    void retiringASubscriptionKeepsItsCursorAndReleasesTheLeasesItHolds() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:worker", owner, "observe", "act");
        w.tables.lease("ci", new Lease("build-1", Lease.holderOf(sub[0]), 3600, World.T0, World.T0, 1, 1, 5, false));

        JsonNode reply = w.subscriptions
                .retire(sub[0], sub[1], RetireSubscription.parse(Json.object().put("reason", "done")))
                .body();

        assertThat(reply.get("cursor_kept").asLong()).isZero();
        assertThat(w.tables.subscription(sub[0]).active()).isFalse();
        assertThat(w.log.at("ci", reply.get("seq").asLong()).type()).isEqualTo(Vocabulary.SUBSCRIPTION_RETIRED);
        assertThat(w.decisions.sent()).singleElement().satisfies(c -> {
            assertThat(c.action()).isEqualTo(LeaseCommand.RELEASE);
            assertThat(c.subject()).isEqualTo("build-1");
            assertThat(c.reason()).isEqualTo("subscription retired: done");
        });
        assertThatThrownBy(() ->
                        w.delivery.ack(sub[0], sub[1], Ack.parse(Json.object().put("cursor", 1))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void theMuteSweepRetiresASubscriptionOnlyOnceItsMuteTimeHasPassed() {
        World w = new World();
        w.monitor("ci");
        ObjectNode body = Json.object();
        body.put("monitor", "ci");
        body.put("subscriber", "agent:quiet");
        body.put("retire_after_mute_seconds", 60);
        String id = w.subscriptions
                .subscribe(Subscribe.parse(body), null)
                .body()
                .get("subscription")
                .get("id")
                .asText();

        w.clock.advance(Duration.ofSeconds(59));
        assertThat(w.subscriptions.retireIfMuted(id, w.clock.instant())).isFalse();
        assertThat(w.tables.subscription(id).active()).isTrue();

        w.clock.advance(Duration.ofSeconds(2));
        assertThat(w.subscriptions.retireIfMuted(id, w.clock.instant())).isTrue();
        assertThat(w.tables.subscription(id).active()).isFalse();
        long seq = w.log.records("ci").size();
        assertThat(w.log.at("ci", seq).actor()).isEqualTo(SubscriptionService.SWEEP);
        assertThat(w.log.at("ci", seq).data().path("payload").path("reason").asText())
                .isEqualTo("mute");
        // Retired already: not due again.
        assertThat(w.subscriptions.retireIfMuted(id, w.clock.instant())).isFalse();
    }
}
