package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeekTest {
    @Test
    void aSeekNamesACursorAndAReason() {
        assertThat(Seek.parse(body("{\"cursor\":5,\"reason\":\"replay\"}"))).isEqualTo(new Seek(5, "replay"));
        assertThat(Seek.parse(body("{\"cursor\":\"12\",\"reason\":\"replay\"}")))
                .isEqualTo(new Seek(12, "replay"));
    }

    @Test
    void theCursorIsANonNegativeInteger() {
        refused(
                () -> Seek.parse(body("{\"reason\":\"replay\"}")),
                "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":null}");
        for (String cursor : List.of("-1", "1.5", "\"x\"", "\"-3\"", "true")) {
            refused(
                    () -> Seek.parse(body("{\"cursor\":" + cursor + ",\"reason\":\"replay\"}")),
                    "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":"
                            + cursor + "}");
        }
    }

    @Test
    void aSeekNeedsAReason() {
        for (String reason : List.of("", ",\"reason\":null", ",\"reason\":\" \"")) {
            refused(
                    () -> Seek.parse(body("{\"cursor\":1" + reason + "}")),
                    "{\"code\":\"INVALID\",\"error\":\"seek requires a reason\",\"done\":[]}");
        }
    }

    @Test
    void theCursorIsCheckedBeforeTheReason() {
        refused(
                () -> Seek.parse(body("{\"cursor\":-1}")),
                "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":-1}");
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        Seek r = Seek.parse(body("{\"cursor\":\"7\",\"reason\":\"replay\"}"));

        assertThat(Seek.parse(r.toJson())).isEqualTo(r);
    }

    @Test
    void aSeekMayNameATimeInsteadOfACursor() {
        assertThat(Seek.parse(body("{\"time\":\"2026-12-01T19:30:00Z\",\"reason\":\"since the deploy\"}")))
                .isEqualTo(new Seek(0, Instant.parse("2026-12-01T19:30:00Z"), "since the deploy"));
        Seek offset = Seek.parse(body("{\"time\":\"2026-12-01T21:30:00.5+02:00\",\"reason\":\"r\",\"cursor\":null}"));
        assertThat(offset.time()).isEqualTo(Instant.parse("2026-12-01T19:30:00.500Z"));
        assertThat(offset.byTime()).isTrue();
        assertThat(Seek.parse(body("{\"cursor\":3,\"time\":null,\"reason\":\"r\"}"))
                        .byTime())
                .isFalse();
    }

    @Test
    void aTimeInAnotherFormatIsRefused() {
        for (String time : List.of(
                "\"2026-12-01 19:30:00Z\"",
                "\"2026-12-01T19:30:00\"",
                "\"2026-12-01\"",
                "\"1733081400\"",
                "\"last tuesday\"",
                "\"2026-13-01T19:30:00Z\"",
                "\"+10000-01-01T00:00:00Z\"",
                "1733081400000",
                "true",
                "{}")) {
            refused(
                    () -> Seek.parse(body("{\"time\":" + time + ",\"reason\":\"replay\"}")),
                    "{\"code\":\"INVALID\",\"error\":\"time must be an RFC 3339 date-time with a zone, e.g. "
                            + "2026-12-01T19:30:00Z\",\"done\":[],\"field\":\"time\",\"time\":" + time + "}");
        }
    }

    @Test
    void aSeekTakesACursorOrATimeNotBoth() {
        refused(
                () -> Seek.parse(body("{\"cursor\":4,\"time\":\"2026-12-01T19:30:00Z\",\"reason\":\"replay\"}")),
                "{\"code\":\"INVALID\",\"error\":\"a seek takes a cursor or a time, not both\",\"done\":[],"
                        + "\"cursor\":4,\"time\":\"2026-12-01T19:30:00Z\"}");
    }

    @Test
    void aSeekByTimeNeedsAReasonAndRoundTrips() {
        refused(
                () -> Seek.parse(body("{\"time\":\"2026-12-01T19:30:00Z\"}")),
                "{\"code\":\"INVALID\",\"error\":\"seek requires a reason\",\"done\":[]}");
        Seek r = Seek.parse(body("{\"time\":\"2026-12-01T19:30:00.000001Z\",\"reason\":\"replay\"}"));
        assertThat(Seek.parse(r.toJson())).isEqualTo(r);
    }
}
