package io.monitorbackbone.protocol.lease;

import static io.monitorbackbone.protocol.lease.LeaseFixtures.MONITOR;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.T0;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.claim;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.complete;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.holder;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.json;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.reject;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.release;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.renew;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.wire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LeasesTest {
    private static final String A = "sub-a";
    private static final String B = "sub-b";

    /** The state after {@code A} claimed build-1 for 30 s at T0. */
    private static LeaseState claimedByA() {
        return Leases.decide(null, claim(A).duration(30).build(), T0).state();
    }

    @Test
    void aFirstClaimOfAPublishedSubjectGrantsTheLease() {
        LeaseCommand command = claim(A).duration(30).note("taking it").build();

        LeaseDecision d = Leases.decide(null, command, T0);

        assertThat(d.reply().status()).isEqualTo(201);
        assertThat(wire(d.reply().body())).isEqualTo(json("""
                {"lease":{"subject":"build-1","holder":"sub:sub-a","lease_duration_seconds":30,
                 "acquire_time":"2026-11-29T18:09:17.598Z","renew_time":"2026-11-29T18:09:17.598Z",
                 "lease_transitions":0,"attempts":1,"delivery_count_limit":5,"dead_letter":false},
                 "expires":"2026-11-29T18:09:47.598Z","idempotent":false}"""));
        assertThat(d.reply().eventId()).isEqualTo(command.requestId());
        assertThat(d.changed()).isTrue();
        assertThat(d.state().lease().holder()).isEqualTo("sub:sub-a");
        assertThat(d.state().published()).isTrue();
    }

    @Test
    void aClaimWritesALeaseRowByTheSubscriber() {
        LeaseCommand command = claim(A).duration(30).note("taking it").build();

        LeaseDecision d = Leases.decide(null, command, T0);

        assertThat(d.rows()).hasSize(1);
        LeaseDecision.Row row = d.rows().get(0);
        assertThat(row.eventId()).isEqualTo(command.requestId());
        Draft draft = row.draft();
        assertThat(draft.type()).isEqualTo(Vocabulary.LEASE);
        assertThat(draft.subject()).isEqualTo("build-1");
        assertThat(draft.actor()).isEqualTo("agent:sub-a");
        assertThat(draft.horizon()).isEqualTo("minute");
        assertThat(draft.time()).isEqualTo("2026-11-29T18:09:17.598Z");
        assertThat(wire(draft.data().get("payload"))).isEqualTo(json("""
                {"action":"claim","subject":"build-1","subscription":"sub-a","lease_duration_seconds":30,
                 "renew_time":"2026-11-29T18:09:17.598Z","expires":"2026-11-29T18:09:47.598Z","note":"taking it"}"""));
        assertThat(draft.data().at("/tags/monitor").asText()).isEqualTo(MONITOR);
        assertThat(draft.data().at("/provenance/source_ref").asText()).isEqualTo("build-1");
    }

    @Test
    void aClaimWithoutADurationGetsFifteenMinutes() {
        LeaseDecision d = Leases.decide(null, claim(A).build(), T0);

        assertThat(d.state().lease().leaseDurationSeconds()).isEqualTo(900);
    }

    @Test
    void aClaimByTheHolderIsIdempotentAndExtendsNothing() {
        LeaseState held = claimedByA();

        LeaseDecision d = Leases.decide(held, claim(A).duration(60).build(), T0.plusSeconds(10));

        assertThat(d.reply().status()).isEqualTo(200);
        assertThat(d.reply().body().get("idempotent").asBoolean()).isTrue();
        assertThat(d.reply().body().get("lease")).isEqualTo(held.lease().toJson());
        assertThat(d.reply().body().get("expires").asText()).isEqualTo("2026-11-29T18:09:47.598Z");
        assertThat(d.changed()).isFalse();
        assertThat(d.state()).isSameAs(held);
        assertThat(d.rows()).isEmpty();
    }

    @Test
    void aClaimOfAHeldSubjectIsRefusedNamingTheHolder() {
        LeaseState held = claimedByA();

        LeaseDecision d = Leases.decide(held, claim(B).build(), T0.plusSeconds(1));

        assertThat(d.reply().status()).isEqualTo(409);
        assertThat(wire(d.reply().body())).isEqualTo(json("""
                {"code":"LEASE_HELD","error":"subject is held by another holder","done":[],"holder":"sub:sub-a",
                 "renew_time":"2026-11-29T18:09:17.598Z","expires":"2026-11-29T18:09:47.598Z"}"""));
        assertThat(d.reply().eventId()).isNull();
        assertThat(d.changed()).isFalse();
        assertThat(d.rows()).isEmpty();
    }

    @Test
    void aClaimOfASubjectTheMonitorNeverPublishedIsNotFound() {
        LeaseDecision d = Leases.decide(
                null, claim(A).subject("never-published").unpublished().build(), T0);

        assertThat(d.reply().status()).isEqualTo(404);
        assertThat(wire(d.reply().body())).isEqualTo(json("""
                {"code":"NOT_FOUND","error":"this subscription's monitor never published that subject; a subscription \
                claims only what its own monitor published","done":[],"subject":"never-published","monitor":"w-1"}"""));
        assertThat(d.changed()).isFalse();
        assertThat(d.state()).isNull();
        assertThat(d.rows()).isEmpty();
    }

    @Test
    void theServicesOwnIndexIsEnoughWhenTheGatewayHasNotSeenThePublish() {
        LeaseState indexed = LeaseState.empty(MONITOR, "build-1").markedPublished("minute");

        LeaseDecision d = Leases.decide(indexed, claim(A).unpublished().build(), T0);

        assertThat(d.reply().status()).isEqualTo(201);
    }

    @Test
    void markingAKnownSubjectPublishedChangesNothing() {
        LeaseState held = claimedByA();

        assertThat(Leases.markPublished(held, MONITOR, "build-1", "minute")).isSameAs(held);
        assertThat(Leases.markPublished(null, MONITOR, "build-2", "hour").published())
                .isTrue();
    }

    @Test
    void theDeadlineItselfIsStillInsideTheLease() {
        LeaseState held = claimedByA();

        LeaseDecision atDeadline = Leases.decide(held, claim(B).build(), T0.plusSeconds(30));
        LeaseDecision justAfter =
                Leases.decide(held, claim(B).build(), T0.plusSeconds(30).plusMillis(1));

        assertThat(atDeadline.reply().status()).isEqualTo(409);
        assertThat(justAfter.reply().status()).isEqualTo(201);
    }

    @Test
    void aClaimAfterExpiryTakesOverAfterTheSweepRow() {
        LeaseState held = claimedByA();
        Instant later = T0.plusSeconds(31);

        LeaseDecision d = Leases.decide(held, claim(B).duration(60).build(), later);

        assertThat(d.reply().status()).isEqualTo(201);
        Lease lease = d.state().lease();
        assertThat(lease.holder()).isEqualTo(holder(B));
        assertThat(lease.leaseTransitions()).isEqualTo(1);
        assertThat(lease.attempts()).isEqualTo(2);
        assertThat(lease.acquireTime()).isEqualTo(later);
        assertThat(d.rows())
                .extracting(r -> r.draft().data().at("/payload/action").asText())
                .containsExactly("expired", "claim");
        assertThat(d.rows().get(0).draft().data().at("/payload/holder").asText())
                .isEqualTo(holder(A));
    }

    @Test
    void renewByTheHolderMovesTheDeadlineAndMayChangeTheDuration() {
        LeaseState held = claimedByA();
        Instant later = T0.plusMillis(36);

        LeaseDecision d =
                Leases.decide(held, renew(A).duration(60).note("still on it").build(), later);

        assertThat(d.reply().status()).isEqualTo(200);
        assertThat(wire(d.reply().body())).isEqualTo(json("""
                {"lease":{"subject":"build-1","holder":"sub:sub-a","lease_duration_seconds":60,
                 "acquire_time":"2026-11-29T18:09:17.598Z","renew_time":"2026-11-29T18:09:17.634Z",
                 "lease_transitions":0,"attempts":1,"delivery_count_limit":5,"dead_letter":false},
                 "expires":"2026-11-29T18:10:17.634Z"}"""));
        assertThat(d.rows())
                .singleElement()
                .satisfies(row ->
                        assertThat(wire(row.draft().data().get("payload"))).isEqualTo(json("""
                        {"action":"renew","subject":"build-1","subscription":"sub-a",
                         "renew_time":"2026-11-29T18:09:17.634Z","expires":"2026-11-29T18:10:17.634Z",
                         "note":"still on it"}""")));
    }

    @Test
    void renewWithoutADurationKeepsTheLeasesOwn() {
        LeaseDecision d = Leases.decide(claimedByA(), renew(A).build(), T0.plusSeconds(20));

        assertThat(d.state().lease().leaseDurationSeconds()).isEqualTo(30);
        assertThat(d.state().lease().expires()).isEqualTo(T0.plusSeconds(50));
    }

    @Test
    void renewByAnotherSubscriptionIsLeaseLostNamingTheHolder() {
        LeaseState held = claimedByA();

        LeaseDecision d = Leases.decide(held, renew(B).build(), T0.plusSeconds(1));

        assertThat(d.reply().status()).isEqualTo(409);
        assertThat(wire(d.reply().body())).isEqualTo(json("""
                {"code":"LEASE_LOST","error":"this subscription no longer holds the lease","done":[],"holder":"sub:sub-a"}"""));
        assertThat(d.changed()).isFalse();
    }

    @Test
    void renewAfterExpiryIsLeaseLostEvenBeforeAnyTakeover() {
        LeaseDecision d = Leases.decide(claimedByA(), renew(A).build(), T0.plusSeconds(31));

        assertThat(d.reply().status()).isEqualTo(409);
        assertThat(d.reply().body().get("holder").isNull()).isTrue();
        assertThat(d.changed()).isTrue();
        assertThat(d.state().lease().holder()).isNull();
        assertThat(d.rows())
                .extracting(r -> r.draft().data().at("/payload/action").asText())
                .containsExactly("expired");
    }

    @Test
    void completeAfterExpiryAndTakeoverIsLeaseLost() {
        LeaseState takenOver = Leases.decide(claimedByA(), claim(B).duration(60).build(), T0.plusSeconds(31))
                .state();

        LeaseDecision d = Leases.decide(takenOver, complete(A).build(), T0.plusSeconds(32));

        assertThat(d.reply().status()).isEqualTo(409);
        assertThat(d.reply().body().get("code").asText()).isEqualTo("LEASE_LOST");
        assertThat(d.reply().body().get("holder").asText()).isEqualTo(holder(B));
        assertThat(d.changed()).isFalse();
    }

    @Test
    void completeByTheHolderDeletesTheLeaseAndWritesTheOutcome() {
        JsonNode evidence = Json.read("[{\"source\":\"monitor:w-1\",\"id\":\"203\"}]".getBytes());
        LeaseCommand command = complete(A).outcome("fixed", evidence).note("ok").build();

        LeaseDecision d = Leases.decide(claimedByA(), command, T0.plusSeconds(1));

        assertThat(d.reply().status()).isEqualTo(200);
        assertThat(wire(d.reply().body())).isEqualTo(json("{\"ok\":true,\"seq\":null}"));
        assertThat(d.reply().eventId()).isEqualTo(command.requestId());
        assertThat(d.state().lease()).isNull();
        assertThat(d.state().published()).isTrue();
        assertThat(d.rows())
                .singleElement()
                .satisfies(row ->
                        assertThat(wire(row.draft().data().get("payload"))).isEqualTo(json("""
                        {"action":"complete","subject":"build-1","subscription":"sub-a","outcome":"fixed",
                         "evidence":[{"source":"monitor:w-1","id":"203"}],"note":"ok"}""")));
    }

    @Test
    void aClaimAfterCompleteStartsAgainAtTheFirstAttempt() {
        LeaseState completed = Leases.decide(claimedByA(), complete(A).build(), T0.plusSeconds(1))
                .state();

        LeaseDecision d = Leases.decide(completed, claim(B).build(), T0.plusSeconds(2));

        assertThat(d.reply().status()).isEqualTo(201);
        assertThat(d.state().lease().attempts()).isEqualTo(1);
        assertThat(d.state().lease().leaseTransitions()).isZero();
    }

    @Test
    void anIdenticalCompleteGetsTheSameAnswerAndWritesNothing() {
        LeaseCommand first = complete(A).outcome("fixed", null).note("ok").build();
        LeaseDecision done = Leases.decide(claimedByA(), first, T0.plusSeconds(1));

        LeaseDecision again = Leases.decide(
                done.state(), complete(A).outcome("fixed", null).note("ok").build(), T0.plusSeconds(2));

        assertThat(again.reply()).isEqualTo(done.reply());
        assertThat(again.reply().eventId()).isEqualTo(first.requestId());
        assertThat(again.changed()).isFalse();
        assertThat(again.rows()).isEmpty();
    }

    @Test
    void aDifferentCompleteAfterCompleteIsLeaseLostWithNoHolder() {
        LeaseState completed = Leases.decide(
                        claimedByA(),
                        complete(A).outcome("fixed", null).note("ok").build(),
                        T0.plusSeconds(1))
                .state();

        LeaseDecision d =
                Leases.decide(completed, complete(A).outcome("fixed", null).build(), T0.plusSeconds(2));

        assertThat(d.reply().status()).isEqualTo(409);
        assertThat(wire(d.reply().body())).isEqualTo(json("""
                {"code":"LEASE_LOST","error":"this subscription no longer holds the lease","done":[],"holder":null}"""));
    }

    @Test
    void releaseFreesTheSubjectAndKeepsItsAttempts() {
        LeaseDecision d =
                Leases.decide(claimedByA(), release(A).reason("not mine").build(), T0.plusSeconds(1));

        assertThat(d.reply().status()).isEqualTo(200);
        assertThat(wire(d.reply().body())).isEqualTo(json("{\"ok\":true,\"seq\":null,\"dead_letter\":false}"));
        assertThat(d.state().lease().holder()).isNull();
        assertThat(d.state().lease().attempts()).isEqualTo(1);
        assertThat(d.rows())
                .singleElement()
                .satisfies(row ->
                        assertThat(wire(row.draft().data().get("payload"))).isEqualTo(json("""
                        {"action":"release","subject":"build-1","subscription":"sub-a","reason":"not mine",
                         "attempts":1,"dead_letter":false}""")));
    }

    @Test
    void anIdenticalReleaseGetsTheSameAnswerAndWritesNothing() {
        LeaseDecision released =
                Leases.decide(claimedByA(), release(A).reason("not mine").build(), T0.plusSeconds(1));

        LeaseDecision again =
                Leases.decide(released.state(), release(A).reason("not mine").build(), T0.plusSeconds(2));

        assertThat(again.reply()).isEqualTo(released.reply());
        assertThat(again.changed()).isFalse();
        assertThat(again.rows()).isEmpty();
    }

    @Test
    void aRepeatAfterSomeoneElseActedIsDecidedAfresh() {
        LeaseDecision released = Leases.decide(claimedByA(), release(A).build(), T0.plusSeconds(1));
        LeaseState claimedByB = Leases.decide(released.state(), claim(B).build(), T0.plusSeconds(2))
                .state();

        LeaseDecision again = Leases.decide(claimedByB, release(A).build(), T0.plusSeconds(3));

        assertThat(again.reply().status()).isEqualTo(409);
        assertThat(again.reply().body().get("holder").asText()).isEqualTo(holder(B));
    }

    @Test
    void aClaimAfterReleaseIsANewDelivery() {
        LeaseState released = Leases.decide(claimedByA(), release(A).build(), T0.plusSeconds(1))
                .state();

        LeaseDecision d = Leases.decide(released, claim(B).build(), T0.plusSeconds(2));

        assertThat(d.reply().status()).isEqualTo(201);
        assertThat(d.state().lease().attempts()).isEqualTo(2);
        assertThat(d.state().lease().leaseTransitions()).isEqualTo(1);
    }

    @Test
    void releaseByANonHolderIsLeaseLost() {
        LeaseDecision d = Leases.decide(claimedByA(), release(B).build(), T0.plusSeconds(1));

        assertThat(d.reply().status()).isEqualTo(409);
        assertThat(d.reply().body().get("code").asText()).isEqualTo("LEASE_LOST");
        assertThat(d.changed()).isFalse();
    }

    @Test
    void theRejectThatReachesTheLimitDeadLettersTheSubject() {
        LeaseState state = null;
        LeaseDecision rejected = null;
        Instant t = T0;
        for (int attempt = 1; attempt <= 5; attempt++) {
            state = Leases.decide(state, claim(A).build(), t).state();
            rejected = Leases.decide(state, reject(A).reason("flaky " + attempt).build(), t.plusMillis(1));
            state = rejected.state();
            t = t.plusSeconds(1);
            assertThat(rejected.reply().body().get("dead_letter").asBoolean()).isEqualTo(attempt == 5);
        }

        assertThat(wire(rejected.reply().body())).isEqualTo(json("{\"ok\":true,\"seq\":null,\"dead_letter\":true}"));
        assertThat(rejected.rows())
                .singleElement()
                .satisfies(row ->
                        assertThat(wire(row.draft().data().get("payload"))).isEqualTo(json("""
                        {"action":"reject","subject":"build-1","subscription":"sub-a","reason":"flaky 5",
                         "attempts":5,"dead_letter":true}""")));
        assertThat(state.lease().deadLetter()).isTrue();
        assertThat(state.lease().holder()).isNull();
    }

    @Test
    void aDeadLetteredSubjectIsRefusedToEveryLaterClaim() {
        LeaseState state = null;
        for (int attempt = 1; attempt <= 5; attempt++) {
            state = Leases.decide(state, claim(A).build(), T0.plusSeconds(attempt))
                    .state();
            state = Leases.decide(state, reject(A).build(), T0.plusSeconds(attempt))
                    .state();
        }

        LeaseDecision byB = Leases.decide(state, claim(B).build(), T0.plusSeconds(10));
        LeaseDecision byA = Leases.decide(state, claim(A).build(), T0.plusSeconds(3600));

        assertThat(byB.reply().status()).isEqualTo(409);
        assertThat(wire(byB.reply().body())).isEqualTo(json("""
                {"code":"DEAD_LETTERED","error":"subject was dead-lettered after 5 attempts; it is not delivered again",
                 "done":[],"subject":"build-1","attempts":5,"delivery_count_limit":5}"""));
        assertThat(byA.reply().body().get("code").asText()).isEqualTo("DEAD_LETTERED");
        assertThat(byB.changed()).isFalse();
    }

    @Test
    void theSweepFreesAnExpiredLeaseAndSaysSo() {
        LeaseState held = claimedByA();
        Instant later = T0.plusSeconds(31);

        LeaseDecision d = Leases.expire(held, later);

        assertThat(d.reply()).isNull();
        assertThat(d.changed()).isTrue();
        assertThat(d.state().lease().holder()).isNull();
        assertThat(d.state().lease().attempts()).isEqualTo(1);
        LeaseDecision.Row row = d.rows().get(0);
        assertThat(row.eventId()).isNull();
        assertThat(row.draft().actor()).isEqualTo("system:sweep");
        assertThat(row.draft().origin()).isEqualTo("system");
        assertThat(row.draft().verified()).isEqualTo("machine_verified");
        assertThat(row.draft().subject()).isEqualTo("build-1");
        assertThat(row.draft().horizon()).isEqualTo("minute");
        assertThat(wire(row.draft().data().get("payload")))
                .isEqualTo(json("{\"action\":\"expired\",\"subject\":\"build-1\",\"holder\":\"sub:sub-a\"}"));
    }

    @Test
    void theSweepLeavesLiveFreeAndMissingLeasesAlone() {
        LeaseState held = claimedByA();
        LeaseState released = Leases.decide(held, release(A).build(), T0).state();

        assertThat(Leases.expire(held, T0.plusSeconds(30)).changed()).isFalse();
        assertThat(Leases.expire(released, T0.plusSeconds(3600)).changed()).isFalse();
        assertThat(Leases.expire(null, T0).changed()).isFalse();
    }

    @Test
    void aHumanSubscriberNameDoesNotMakeTheRowHuman() {
        LeaseCommand base = claim(A).build();
        LeaseCommand human = new LeaseCommand(
                base.requestId(),
                base.action(),
                base.monitor(),
                base.horizon(),
                false,
                base.subject(),
                base.subscription(),
                "human:mallory",
                null,
                null,
                null,
                null,
                null,
                5,
                true);

        LeaseDecision d = Leases.decide(null, human, T0);

        assertThat(d.rows().get(0).draft().origin()).isEqualTo("agent");
        assertThat(d.rows().get(0).draft().actor()).isEqualTo("human:mallory");
    }
}
