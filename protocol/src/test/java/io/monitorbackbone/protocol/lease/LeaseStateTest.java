package io.monitorbackbone.protocol.lease;

import static io.monitorbackbone.protocol.lease.LeaseFixtures.T0;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.claim;
import static io.monitorbackbone.protocol.lease.LeaseFixtures.complete;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaseStateTest {

    @Test
    void aHeldLeaseSurvivesItsTripThroughTheStore() {
        LeaseState held = Leases.decide(
                        null, claim("sub-a").duration(30).note("n").build(), T0.plusNanos(123_456))
                .state();

        assertThat(LeaseState.fromJson(held.toJson())).isEqualTo(held);
    }

    @Test
    void aCompletedStateKeepsItsIndexAndItsLastAnswer() {
        LeaseState held = Leases.decide(null, claim("sub-a").build(), T0).state();
        LeaseState completed = Leases.decide(held, complete("sub-a").build(), T0.plusSeconds(1))
                .state();

        LeaseState back = LeaseState.fromJson(completed.toJson());

        assertThat(back).isEqualTo(completed);
        assertThat(back.lease()).isNull();
        assertThat(back.published()).isTrue();
        assertThat(back.last().action()).isEqualTo("complete");
    }
}
