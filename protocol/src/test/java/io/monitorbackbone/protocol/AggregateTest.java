package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.confidence.Actors;
import io.monitorbackbone.protocol.confidence.Contradictions;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AggregateTest {
    private static final String PLAIN = "{\"owner\":\"agent:owner\"}";

    @Test
    void everyRowCountsAndRejectionsAndCompletedLeasesCountAgain() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .publish("{\"type\":\"demo.note\"}")
                .rejected("{\"type\":\"x\"}")
                .row(Vocabulary.LEASE, "agent:w", "job-1", "{\"action\":\"claim\"}")
                .row(Vocabulary.LEASE, "agent:w", "job-1", "{\"action\":\"complete\"}")
                .row(Vocabulary.LEASE, "agent:w", "job-2", "{\"action\":\"release\"}");

        Aggregate a = log.aggregate();

        assertThat(a.observations()).isEqualTo(5);
        assertThat(a.rejected()).isEqualTo(1);
        assertThat(a.acted()).isEqualTo(1);
        assertThat(a.firstSeq()).isEqualTo(1);
        assertThat(a.lastSeq()).isEqualTo(5);
    }

    @Test
    void lastFollowsEveryRowButSourceContactOnlyAProducersPublish() {
        Instant published = LogFixture.T0.plusSeconds(10);
        LogFixture log = LogFixture.of(PLAIN, false)
                .at(published)
                .publish("{\"type\":\"demo.note\",\"time\":\"2026-11-29T17:00:00Z\"}")
                .at(published.plusSeconds(5))
                .row(Vocabulary.SUBSCRIBED, "agent:r", null, "{}");

        Aggregate a = log.aggregate();

        assertThat(a.lastType()).isEqualTo(Vocabulary.SUBSCRIBED);
        assertThat(a.lastTime()).isEqualTo("2026-11-29T18:00:15.000Z");
        assertThat(a.lastSourceTime()).isEqualTo("2026-11-29T17:00:00Z");
        assertThat(a.lastSourceContact())
                .as("contact is when the log got it, not the time the producer claims")
                .isEqualTo("2026-11-29T18:00:10.000Z");
    }

    @Test
    void withoutAnAppendTimeSourceContactIsTheObservationsTime() {
        ObjectNode served = Publications.resolve(
                        LogFixture.of(PLAIN, false).monitor(),
                        LogFixture.body("{\"type\":\"demo.note\"}"),
                        LogFixture.T0)
                .served("w-1", 1, false);

        Aggregate a = Aggregate.EMPTY.apply(1, served);

        assertThat(a.lastSourceContact()).isEqualTo("2026-11-29T18:00:00.000Z");
    }

    @Test
    void aRedeliveredSeqChangesNothing() {
        LogFixture log =
                LogFixture.of(PLAIN, false).publish("{\"type\":\"demo.note\"}").publish("{\"type\":\"demo.note\"}");
        ObjectNode again = Publications.resolve(
                        log.monitor(), LogFixture.body("{\"type\":\"demo.other\"}"), LogFixture.T0)
                .served("w-1", 2, true);

        Aggregate a = log.aggregate().apply(2, again);

        assertThat(a).isSameAs(log.aggregate());
    }

    @Test
    void skippedSeqsAreNotCounted() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .publish("{\"type\":\"demo.note\"}")
                .skipSeqs(3)
                .publish("{\"type\":\"demo.note\"}");

        assertThat(log.aggregate().observations()).isEqualTo(2);
        assertThat(log.aggregate().lastSeq()).isEqualTo(5);
    }

    @Test
    void systemActorsAreNotActorsAndAnyOtherActorIsCountedOnce() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .rejected("{}")
                .publish("{\"type\":\"demo.note\",\"actor\":\"probe:a\"}")
                .publish("{\"type\":\"demo.note\",\"actor\":\"probe:a\"}");
        assertThat(log.aggregate().distinctActors()).isEqualTo(1);

        log.publish("{\"type\":\"demo.note\",\"actor\":\"agent:b\"}");

        assertThat(log.aggregate().distinctActors()).isEqualTo(2);
        assertThat(log.aggregate().actors().names()).containsExactly("probe:a", "agent:b");
    }

    @Test
    void actorsPastTheBoundArePooledAndStillCountAsMany() {
        LogFixture log = LogFixture.of(PLAIN, false);
        for (int i = 0; i < Actors.MAX + 10; i++) {
            log.publish("{\"type\":\"demo.note\",\"actor\":\"agent:a" + i + "\"}");
        }

        Actors actors = log.aggregate().actors();

        assertThat(actors.names()).hasSize(Actors.MAX);
        assertThat(actors.overflow()).isTrue();
        assertThat(actors.distinct()).isGreaterThan(Actors.MAX);
    }

    @Test
    void actorsDeclaredIndependentAreNotActorsOfTheLogUntilTheyAppearInIt() {
        LogFixture log = LogFixture.of("{\"owner\":\"human:alice\"}", true)
                .configure(
                        "{\"source\":{\"kind\":\"log\",\"ref\":\"x\",\"settings\":{\"independent_actors\":[\"probe:a\",\"probe:b\"]}}}");
        assertThat(log.aggregate().distinctActors())
                .as("only the owner, who made the change")
                .isEqualTo(1);

        log.publish("{\"type\":\"demo.note\",\"actor\":\"probe:b\"}");

        assertThat(log.aggregate().distinctActors()).isEqualTo(2);
    }

    @Test
    void contradictionsOpenAndCloseBySubject() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .publish("{\"type\":\"demo.claim.contradiction\",\"subject\":\"a\"}")
                .publish("{\"type\":\"demo.claim.contradiction\",\"subject\":\"b\"}")
                .publish("{\"type\":\"demo.claim.contradiction\",\"subject\":\"a\"}");
        assertThat(log.aggregate().contradictionsOpen())
                .as("a second contradiction on an open subject")
                .isEqualTo(2);

        log.publish("{\"type\":\"demo.claim.contradiction_resolved\",\"subject\":\"c\"}");
        assertThat(log.aggregate().contradictionsOpen())
                .as("resolving what was never open")
                .isEqualTo(2);

        log.publish("{\"type\":\"demo.claim.contradiction_resolved\",\"subject\":\"a\"}");

        assertThat(log.aggregate().contradictions().open()).containsExactly("b");
        assertThat(log.aggregate().contradictionsOpen()).isEqualTo(1);
    }

    @Test
    void protocolContradictionRowsCountBySubjectToo() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .row(Vocabulary.CONTRADICTION, "system:rules", "x", "{}")
                .row(Vocabulary.CONTRADICTION_RESOLVED, "system:rules", "x", "{}")
                .row(Vocabulary.CONTRADICTION, "system:rules", "y", "{}");

        assertThat(log.aggregate().contradictions().open()).containsExactly("y");
    }

    @Test
    void contradictionsPastTheBoundAreCountedAsUntracked() {
        LogFixture log = LogFixture.of(PLAIN, false);
        for (int i = 0; i < Contradictions.MAX + 3; i++) {
            log.publish("{\"type\":\"demo.contradiction\",\"subject\":\"s" + i + "\"}");
        }
        assertThat(log.aggregate().contradictionsOpen()).isEqualTo(Contradictions.MAX + 3);

        log.publish("{\"type\":\"demo.contradiction_resolved\",\"subject\":\"s" + (Contradictions.MAX + 1) + "\"}");

        assertThat(log.aggregate().contradictions().untracked()).isEqualTo(2);
        assertThat(log.aggregate().contradictionsOpen()).isEqualTo(Contradictions.MAX + 2);
    }

    @Test
    void rowsWithoutProvenanceAreCounted() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .publish("{\"type\":\"demo.note\"}")
                .unprovenanced("demo.bridged", "agent:k");

        assertThat(log.aggregate().unprovenanced()).isEqualTo(1);
        assertThat(log.aggregate().lastSourceContact()).isNotNull();
    }

    @Test
    void itRoundTripsThroughJsonUnchanged() {
        LogFixture log = LogFixture.of("{\"owner\":\"human:alice\",\"horizon\":\"hour\"}", true)
                .configure(
                        "{\"source\":{\"kind\":\"log\",\"ref\":\"x\",\"settings\":{\"independent_actors\":[\"probe:a\",\"probe:b\"]}}}")
                .publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"probe:a\",\"data\":{\"v\":1}}")
                .publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"probe:b\",\"data\":{\"v\":1}}")
                .publish(
                        "{\"type\":\"demo.v\",\"tier\":\"falsified\",\"actor\":\"agent:c\",\"supersedes\":{\"source\":\"monitor:w-1\",\"id\":\"2\"}}")
                .publish("{\"type\":\"demo.claim.contradiction\",\"subject\":\"s\"}")
                .rejected("{}");

        Aggregate back = Aggregate.fromJson(log.aggregate().toJson());

        assertThat(back).isEqualTo(log.aggregate());
        assertThat(Json.read(back.toJson())).isEqualTo(Json.read(log.aggregate().toJson()));
        assertThat(Json.read(back.toJson()).has("last_source_contact")).isTrue();
    }

    @Test
    void theTypesTheLogCarriedAreKeptSortedOnceEachUpToTheBound() {
        LogFixture log = LogFixture.of(PLAIN, false)
                .publish("{\"type\":\"demo.b\"}")
                .publish("{\"type\":\"demo.a\"}")
                .publish("{\"type\":\"demo.b\"}");

        assertThat(log.aggregate().types()).containsExactly("demo.a", "demo.b");
        assertThat(log.aggregate().typesOverflow()).isFalse();

        for (int i = 0; i < Aggregate.MAX_TYPES; i++) {
            log.publish("{\"type\":\"demo.t" + i + "\"}");
        }
        Aggregate a = log.aggregate();
        assertThat(a.types()).hasSize(Aggregate.MAX_TYPES).isSorted().doesNotHaveDuplicates();
        assertThat(a.typesOverflow()).as("more types than the bound").isTrue();
        assertThat(Aggregate.fromJson(a.toJson())).isEqualTo(a);
    }

    @Test
    void anOlderSerialFormWithFieldsMissingOrUnknownStillReads() {
        Aggregate a = Aggregate.fromJson("{\"observations\":3,\"last_seq\":3,\"retired_field\":true}".getBytes());

        assertThat(a.observations()).isEqualTo(3);
        assertThat(a.actors()).isEqualTo(Actors.NONE);
        assertThat(a.types()).isEmpty();
        assertThat(a.apply(
                                4,
                                Publications.resolve(
                                                LogFixture.of(PLAIN, false).monitor(),
                                                LogFixture.body("{\"type\":\"demo.note\"}"),
                                                LogFixture.T0)
                                        .served("w-1", 4, false))
                        .observations())
                .isEqualTo(4);
    }

    @Test
    void itsSizeIsBoundedWhateverTheLogsLength() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\",\"horizon\":\"day\"}", false);
        for (int i = 0; i < 5_000; i++) {
            log.publish("{\"type\":\"demo.v\",\"subject\":\"subject-with-a-longish-name-" + i
                    + "\",\"actor\":\"agent:actor-" + (i % 50) + "\",\"data\":{\"v\":" + i + "}}");
            if (i % 7 == 0) {
                log.publish("{\"type\":\"demo.contradiction\",\"subject\":\"s" + i + "\"}");
            }
            if (i % 11 == 0) {
                log.publish(
                        "{\"type\":\"demo.v\",\"tier\":\"falsified\",\"supersedes\":{\"source\":\"monitor:w-1\",\"id\":\""
                                + (log.seq() - 400) + "\"}}");
            }
        }

        byte[] json = log.aggregate().toJson();

        assertThat(log.aggregate().observations()).isGreaterThan(5_000);
        assertThat(json.length).as("bytes of the serialised aggregate").isLessThan(64 * 1024);
    }
}
