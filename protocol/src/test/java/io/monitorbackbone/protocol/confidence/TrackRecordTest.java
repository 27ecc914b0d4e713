package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.LogFixture;
import io.monitorbackbone.protocol.Vocabulary;
import org.junit.jupiter.api.Test;

class TrackRecordTest {
    private static LogFixture log() {
        return LogFixture.of("{\"owner\":\"agent:owner\"}", false);
    }

    private static String claim(String actor) {
        return "{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"" + actor + "\"}";
    }

    private static String falsifies(long seq) {
        return falsifies("monitor:w-1", seq);
    }

    private static String falsifies(String source, long seq) {
        return "{\"type\":\"demo.v\",\"tier\":\"falsified\",\"actor\":\"agent:checker\",\"supersedes\":{\"source\":\""
                + source + "\",\"id\":\"" + seq + "\"}}";
    }

    @Test
    void aFalsifiedCorrectionCountsAgainstTheActorOfTheClaimItSupersedes() {
        LogFixture log = log().publish(claim("probe:a"))
                .publish(claim("probe:a"))
                .publish(claim("probe:b"))
                .publish(claim("probe:a"));

        log.publish(falsifies(2));

        TrackRecord t = log.aggregate().trackRecord();
        Actors actors = log.aggregate().actors();
        assertThat(t.tallies().get(actors.indexOf("probe:a"))).isEqualTo(new TrackRecord.Tally(3, 1));
        assertThat(t.tallies().get(actors.indexOf("probe:b"))).isEqualTo(new TrackRecord.Tally(1, 0));
        assertThat(t.claims()).as("the correction is not a claim").isEqualTo(4);
        assertThat(t.value()).isEqualTo(0.75);
    }

    @Test
    void aSecondCorrectionOfTheSameClaimCountsOnce() {
        LogFixture log =
                log().publish(claim("probe:a")).publish(claim("probe:a")).publish(falsifies(1));

        log.publish(falsifies(1));

        assertThat(log.aggregate().trackRecord().falsified()).isEqualTo(1);
        assertThat(log.aggregate().trackRecord().value()).isEqualTo(0.5);
    }

    @Test
    void aCorrectionThatIsNotFalsifiedSupersedesButDoesNotCount() {
        LogFixture log = log().publish(claim("probe:a"));

        log.publish(
                "{\"type\":\"demo.v\",\"actor\":\"agent:checker\",\"supersedes\":{\"source\":\"monitor:w-1\",\"id\":\"1\"}}");

        assertThat(log.aggregate().trackRecord().falsified()).isZero();
        assertThat(log.aggregate().trackRecord().value()).isEqualTo(1.0);
    }

    @Test
    void correctionsOfNoClaimAreIgnored() {
        LogFixture log = log().publish(claim("probe:a")).row(Vocabulary.SUBSCRIBED, "agent:r", null, "{}");

        log.publish(falsifies(2))
                .publish(falsifies("monitor:elsewhere", 1))
                .publish(falsifies(99))
                .publish(falsifies(log.seq()));

        assertThat(log.aggregate().trackRecord().falsified()).isZero();
    }

    @Test
    void aCorrectionOfAClaimTooOldToAttributeStillCountsOnce() {
        LogFixture log = log();
        for (int i = 0; i < TrackRecord.RECENT + 10; i++) {
            log.publish(claim("probe:a"));
        }

        log.publish(falsifies(3)).publish(falsifies(3));

        TrackRecord t = log.aggregate().trackRecord();
        assertThat(t.unattributed()).isEqualTo(1);
        assertThat(t.falsified()).isEqualTo(1);
        assertThat(t.tallies().get(0).falsified())
                .as("no actor is blamed for what the fold no longer remembers")
                .isZero();
    }

    @Test
    void itIsMissingBeforeTheFirstClaim() {
        LogFixture log = log().row(Vocabulary.SUBSCRIBED, "agent:r", null, "{}").rejected("{}");

        assertThat(log.aggregate().trackRecord().value()).isNull();
    }
}
