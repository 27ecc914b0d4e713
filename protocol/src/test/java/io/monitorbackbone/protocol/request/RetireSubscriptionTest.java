package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetireSubscriptionTest {
    @Test
    void aRetirementRecordsItsReasonOrByRequest() {
        assertThat(RetireSubscription.parse(body("{\"reason\":\"done\"}")).reason())
                .isEqualTo("done");
        assertThat(RetireSubscription.parse(body("{}")).reason()).isEqualTo("by request");
        assertThat(RetireSubscription.parse(body("{\"reason\":null}")).reason()).isEqualTo("by request");
        // As text, like every reason a protocol row records.
        assertThat(RetireSubscription.parse(body("{\"reason\":42}")).reason()).isEqualTo("42");
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        RetireSubscription r = RetireSubscription.parse(body("{\"reason\":\"done\"}"));

        assertThat(RetireSubscription.parse(r.toJson())).isEqualTo(r);
        assertThat(RetireSubscription.parse(RetireSubscription.parse(body("{}")).toJson())
                        .reason())
                .isEqualTo("by request");
    }
}
