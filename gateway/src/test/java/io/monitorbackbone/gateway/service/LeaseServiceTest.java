package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;
import io.monitorbackbone.protocol.request.LeaseCall;
import java.util.List;
import org.junit.jupiter.api.Test;

/** LeaseService over in-memory ports: the gateway authenticates and shapes the command; the leases service decides. */
class LeaseServiceTest {

    private static ErrorCode code(Throwable t) {
        return ((ProtocolException) t).code();
    }

    @Test
    void aClaimIsSentAsItsHoldersCommandAndAnsweredWithTheSeqOfTheRowTheDecisionWrote() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:worker", owner, "observe", "act");
        w.publish("ci", owner, "build-1");
        w.decisions.answer(c -> new LeaseReply(201, Json.object().put("seq", 0).put("subject", c.subject()), "evt-1"));
        w.tables.tail("ci").sawEvent("evt-1", 7);

        Reply reply = w.leases.act(
                sub[0], sub[1], LeaseCall.parse("claim", Json.object().put("subject", "build-1")));

        assertThat(reply.status()).isEqualTo(201);
        assertThat(reply.body().get("seq").asLong()).isEqualTo(7);
        assertThat(w.decisions.sent()).singleElement().satisfies(c -> {
            assertThat(c.action()).isEqualTo(LeaseCommand.CLAIM);
            assertThat(c.subscription()).isEqualTo(sub[0]);
            assertThat(c.monitor()).isEqualTo("ci");
            // This gateway's tail saw the subject published.
            assertThat(c.published()).isTrue();
        });
    }

    @Test
    void anUnknownActionAnotherTokenOrASubscriptionWithoutActSendsNothing() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] worker = w.subscribe("ci", "agent:worker", owner, "observe", "act");
        String[] reader = w.subscribe("ci", "agent:reader", null, "observe");

        assertThatThrownBy(() -> w.leases.act(
                        worker[0],
                        worker[1],
                        LeaseCall.parse("steal", Json.object().put("subject", "x"))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> w.leases.act(
                        worker[0],
                        reader[1],
                        LeaseCall.parse("claim", Json.object().put("subject", "x"))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(() -> w.leases.act(
                        reader[0],
                        reader[1],
                        LeaseCall.parse("claim", Json.object().put("subject", "x"))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CAPABILITY_MISSING));
        assertThat(w.decisions.sent()).isEmpty();
    }

    @Test
    void releasingWhatSubscriptionsHoldReleasesOnlyTheirLeasesThatAreStillHeld() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] a = w.subscribe("ci", "agent:a", owner, "observe", "act");
        String[] b = w.subscribe("ci", "agent:b", owner, "observe", "act");
        w.tables.lease("ci", new Lease("held-by-a", Lease.holderOf(a[0]), 3600, World.T0, World.T0, 1, 1, 5, false));
        w.tables.lease("ci", new Lease("held-by-b", Lease.holderOf(b[0]), 3600, World.T0, World.T0, 1, 1, 5, false));
        // Expired an hour after it was renewed: no longer held, so nothing to release.
        w.tables.lease(
                "ci",
                new Lease(
                        "expired",
                        Lease.holderOf(a[0]),
                        60,
                        World.T0.minusSeconds(7200),
                        World.T0.minusSeconds(7200),
                        1,
                        1,
                        5,
                        false));

        w.leases.releaseHeldBy(w.tables.monitor("ci"), List.of(w.tables.subscription(a[0])), "test");

        assertThat(w.decisions.sent()).singleElement().satisfies(c -> {
            assertThat(c.action()).isEqualTo(LeaseCommand.RELEASE);
            assertThat(c.subject()).isEqualTo("held-by-a");
            assertThat(c.reason()).isEqualTo("test");
        });
    }
}
