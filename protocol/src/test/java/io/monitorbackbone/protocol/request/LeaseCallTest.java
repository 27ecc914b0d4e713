package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseCallTest {
    @Test
    void aCallCarriesItsActionAndFields() {
        LeaseCall r = LeaseCall.parse("complete", body("""
                {"subject":"build-1","lease_duration_seconds":30,"note":"ok","outcome":"fixed","evidence":[{"id":"203"}],
                 "reason":"done"}"""));

        assertThat(r)
                .isEqualTo(new LeaseCall(
                        "complete",
                        "build-1",
                        30L,
                        "ok",
                        "fixed",
                        body("{\"e\":[{\"id\":\"203\"}]}").get("e"),
                        "done"));
    }

    @Test
    void absentFieldsAreNull() {
        assertThat(LeaseCall.parse("claim", body("{\"subject\":\"s\",\"evidence\":null,\"note\":null}")))
                .isEqualTo(new LeaseCall("claim", "s", null, null, null, null, null));
        assertThat(LeaseCall.release("s", "subscription retired: mute"))
                .isEqualTo(new LeaseCall("release", "s", null, null, null, null, "subscription retired: mute"));
    }

    @Test
    void anUnknownActionIsAnUnknownRoute() {
        refused(
                () -> LeaseCall.parse("steal", body("{\"subject\":\"s\"}")),
                "{\"code\":\"NOT_FOUND\",\"error\":\"unknown route: leases/steal\",\"done\":[]}");
    }

    @Test
    void aMissingOrNonTextSubjectIsInvalid() {
        for (String json : List.of("{}", "{\"subject\":null}", "{\"subject\":7}", "{\"subject\":\"\"}")) {
            refused(
                    () -> LeaseCall.parse("claim", body(json)),
                    "{\"code\":\"INVALID\",\"error\":\"subject required\",\"done\":[],\"field\":\"subject\"}");
        }
        refused(
                () -> LeaseCall.parse(
                        "claim", body("{\"subject\":\"" + "s".repeat(Vocabulary.MAX_SUBJECT_LENGTH + 1) + "\"}")),
                "{\"code\":\"INVALID\",\"error\":\"subject is longer than 1024 characters\",\"done\":[],\"field\":\"subject\"}");
    }

    @Test
    void aDurationOutsideItsBoundsIsInvalid() {
        for (String duration : List.of("0", "-5", "86401", "1.5", "\"30\"")) {
            refused(
                    () -> LeaseCall.parse(
                            "claim", body("{\"subject\":\"build-1\",\"lease_duration_seconds\":" + duration + "}")),
                    "{\"code\":\"INVALID\",\"error\":\"lease_duration_seconds must be an integer from 1 to 86400\",\"done\":[],"
                            + "\"field\":\"lease_duration_seconds\"}");
        }
        assertThat(LeaseCall.parse("claim", body("{\"subject\":\"s\",\"lease_duration_seconds\":30.0}"))
                        .leaseDurationSeconds())
                .isEqualTo(30L);
    }

    @Test
    void textFieldsMustBeStrings() {
        for (String field : List.of("note", "outcome", "reason")) {
            refused(
                    () -> LeaseCall.parse("reject", body("{\"subject\":\"s\",\"" + field + "\":5}")),
                    "{\"code\":\"INVALID\",\"error\":\"" + field + " must be a string\",\"done\":[],\"field\":\""
                            + field + "\"}");
        }
    }

    @Test
    void theFieldsAreCheckedInTheOrderOfToday() {
        // An empty subject is found after the other fields' types, a duration's bounds after that.
        refused(
                () -> LeaseCall.parse("claim", body("{\"subject\":\"\",\"note\":5}")),
                "{\"code\":\"INVALID\",\"error\":\"note must be a string\",\"done\":[],\"field\":\"note\"}");
        refused(
                () -> LeaseCall.parse("claim", body("{\"subject\":\"\",\"lease_duration_seconds\":0}")),
                "{\"code\":\"INVALID\",\"error\":\"subject required\",\"done\":[],\"field\":\"subject\"}");
    }

    @Test
    void aCallBuiltByHandIsAnAction() {
        assertThatThrownBy(() -> new LeaseCall("steal", "s", null, null, null, null, null))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        for (String action : LeaseCommand.ACTIONS) {
            for (String json : List.of(
                    "{\"subject\":\"s\"}",
                    "{\"subject\":\"s\",\"lease_duration_seconds\":60,\"note\":\"n\","
                            + "\"outcome\":\"o\",\"evidence\":{\"k\":1},\"reason\":\"r\"}")) {
                LeaseCall r = LeaseCall.parse(action, body(json));

                assertThat(LeaseCall.parse(action, r.toJson())).isEqualTo(r);
            }
        }
    }
}
