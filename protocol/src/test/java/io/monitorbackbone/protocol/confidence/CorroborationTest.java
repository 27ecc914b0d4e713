package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.LogFixture;
import org.junit.jupiter.api.Test;

class CorroborationTest {
    private static LogFixture log(String horizon) {
        return LogFixture.of("{\"owner\":\"agent:owner\",\"horizon\":\"" + horizon + "\"}", false);
    }

    private static String report(String subject, String actor, String data) {
        return "{\"type\":\"demo.v\",\"subject\":\"" + subject + "\",\"actor\":\"" + actor + "\",\"data\":" + data
                + "}";
    }

    @Test
    void aSubjectTwoActorsReportAlikeIsCorroborated() {
        LogFixture log = log("event")
                .publish(report("s", "probe:a", "{\"v\":1,\"w\":2}"))
                .publish(report("s", "probe:b", "{\"w\":2,\"v\":1,\"tags\":{\"mine\":true}}"));

        assertThat(log.aggregate().corroboration().value()).isEqualTo(1.0);
    }

    @Test
    void theSameActorTwiceIsNotCorroboration() {
        LogFixture log =
                log("event").publish(report("s", "probe:a", "{\"v\":1}")).publish(report("s", "probe:a", "{\"v\":1}"));

        assertThat(log.aggregate().corroboration().value()).isEqualTo(0.0);
    }

    @Test
    void differentContentStartsANewClaim() {
        LogFixture log = log("event")
                .publish(report("s", "probe:a", "{\"v\":1}"))
                .publish(report("s", "probe:b", "{\"v\":1}"))
                .publish(report("s", "probe:c", "{\"v\":2}"));

        assertThat(log.aggregate().corroboration().subjects().get(0).reporters())
                .hasSize(1);
        assertThat(log.aggregate().corroboration().value()).isEqualTo(0.0);
    }

    @Test
    void theShareIsOverTheTrackedSubjects() {
        LogFixture log = log("event")
                .publish(report("s", "probe:a", "{\"v\":1}"))
                .publish(report("s", "probe:b", "{\"v\":1}"))
                .publish(report("t", "probe:a", "{\"v\":1}"))
                .publish("{\"type\":\"demo.v\",\"actor\":\"probe:a\"}");

        assertThat(log.aggregate().corroboration().subjects())
                .as("a report without subject is about no subject")
                .hasSize(2);
        assertThat(log.aggregate().corroboration().value()).isEqualTo(0.5);
    }

    @Test
    void aReportOlderThanTheHorizonNoLongerAgrees() {
        LogFixture log = log("minute")
                .publish(report("s", "probe:a", "{\"v\":1}"))
                .at(LogFixture.T0.plusSeconds(61))
                .publish(report("s", "probe:b", "{\"v\":1}"));
        assertThat(log.aggregate().corroboration().value()).isEqualTo(0.0);

        log.at(LogFixture.T0.plusSeconds(100)).publish(report("s", "probe:a", "{\"v\":1}"));

        assertThat(log.aggregate().corroboration().value()).isEqualTo(1.0);
    }

    @Test
    void aFalsifiedReportWithdrawsTheClaim() {
        LogFixture log =
                log("event").publish(report("s", "probe:a", "{\"v\":1}")).publish(report("s", "probe:b", "{\"v\":1}"));

        log.publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"tier\":\"falsified\",\"actor\":\"agent:c\"}");

        assertThat(log.aggregate().corroboration().subjects()).hasSize(1);
        assertThat(log.aggregate().corroboration().value()).isEqualTo(0.0);
    }

    @Test
    void systemRowsAndProtocolRowsAreNoReports() {
        LogFixture log = log("event")
                .publish(report("s", "probe:a", "{\"v\":1}"))
                .publish(report("s", "system:clock", "{\"v\":1}"));

        assertThat(log.aggregate().corroboration().value()).isEqualTo(0.0);
    }

    @Test
    void itIsMissingWithoutAnySubject() {
        LogFixture log = log("event").publish("{\"type\":\"demo.v\"}");

        assertThat(log.aggregate().corroboration().value()).isNull();
    }

    @Test
    void onlyTheMostRecentlyReportedSubjectsAreKept() {
        LogFixture log = log("event");
        for (int i = 0; i < Corroboration.MAX_SUBJECTS + 5; i++) {
            log.publish(report("s" + i, "probe:a", "{}"));
        }

        assertThat(log.aggregate().corroboration().subjects()).hasSize(Corroboration.MAX_SUBJECTS);
        assertThat(log.aggregate().corroboration().subjects().get(0).key()).isEqualTo("s5");
    }

    @Test
    void longSubjectsAreKeptByDigest() {
        String longSubject = "x".repeat(200);

        LogFixture log = log("event")
                .publish(report(longSubject, "probe:a", "{}"))
                .publish(report(longSubject, "probe:b", "{}"));

        assertThat(log.aggregate().corroboration().subjects().get(0).key())
                .startsWith("sha256:")
                .hasSize(39);
        assertThat(log.aggregate().corroboration().value()).isEqualTo(1.0);
    }
}
