package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.LogFixture;
import org.junit.jupiter.api.Test;

class IndependenceTest {
    private static final String DECLARE =
            "{\"source\":{\"kind\":\"log\",\"ref\":\"x\",\"settings\":{\"independent_actors\":[\"probe:a\",\"probe:b\",\"system:clock\"]}}}";
    private static final String HUMAN = "{\"owner\":\"human:alice\"}";

    private static String report(String subject, String actor) {
        return "{\"type\":\"demo.v\",\"subject\":\"" + subject + "\",\"actor\":\"" + actor + "\",\"data\":{\"v\":1}}";
    }

    @Test
    void withoutADeclarationItIsNeverComputedHoweverManyActorsAgree() {
        LogFixture log = LogFixture.of(HUMAN, true)
                .publish(report("s", "probe:a"))
                .publish(report("s", "probe:b"))
                .publish(report("s", "probe:c"));

        assertThat(log.aggregate().independence().hasDeclaration()).isFalse();
        assertThat(log.aggregate()
                        .independence()
                        .value(log.aggregate().corroboration(), log.aggregate().actors()))
                .isNull();
    }

    @Test
    void theHumanOwnersDeclarationNamesTheIndependentActors() {
        LogFixture log = LogFixture.of(HUMAN, true)
                .configure(DECLARE)
                .publish(report("s", "probe:a"))
                .publish(report("s", "probe:b"))
                .publish(report("t", "probe:a"))
                .publish(report("t", "agent:c"));

        Independence i = log.aggregate().independence();

        assertThat(i.declared()).containsExactly("probe:a", "probe:b");
        assertThat(i.seq()).isEqualTo(1);
        assertThat(i.value(log.aggregate().corroboration(), log.aggregate().actors()))
                .isEqualTo(0.5);
    }

    @Test
    void aDeclarationTheServerDidNotRecordAsHumanIsIgnored() {
        LogFixture unattested = LogFixture.of(HUMAN, false).configure(DECLARE);
        LogFixture agentOwned = LogFixture.of("{\"owner\":\"agent:bot\"}", true).configure(DECLARE);

        assertThat(unattested.aggregate().independence().hasDeclaration()).isFalse();
        assertThat(agentOwned.aggregate().independence().hasDeclaration()).isFalse();
    }

    @Test
    void aLaterChangeWithoutTheListWithdrawsIt() {
        LogFixture log = LogFixture.of(HUMAN, true).configure(DECLARE);

        log.configure("{\"source\":{\"kind\":\"log\",\"ref\":\"x\"}}");

        assertThat(log.aggregate().independence().hasDeclaration()).isFalse();
    }

    @Test
    void declaredActorsKeepAnIndexEvenWhenTheActorTableFillsUp() {
        LogFixture log = LogFixture.of(HUMAN, true).configure(DECLARE);
        for (int i = 0; i < Actors.MAX + 5; i++) {
            log.publish("{\"type\":\"demo.n\",\"actor\":\"agent:n" + i + "\"}");
        }

        log.publish(report("s", "probe:a")).publish(report("s", "probe:b"));

        assertThat(log.aggregate()
                        .independence()
                        .value(log.aggregate().corroboration(), log.aggregate().actors()))
                .isEqualTo(1.0);
    }
}
