package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;

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
}
