package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ServerFault;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** What each meter the services record counts, and that its labels come from a small fixed set. */
class MetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Metrics metrics = new Metrics(registry);

    @Test
    void aPublishIsAcceptedRejectedWhenItsRefusalWasRecordedAndFailedOtherwise() {
        metrics.published(metrics.start(), null);
        metrics.published(
                metrics.start(),
                new CompletionException(
                        ProtocolException.of(ErrorCode.INVALID, "bad tier").with("rejected_seq", 7L)));
        metrics.published(metrics.start(), ProtocolException.ownerTokenRequired());
        metrics.published(metrics.start(), new ServerFault("Kafka did not answer", null));

        assertThat(registry.get("mp.publish")
                        .tag("outcome", "accepted")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("mp.publish")
                        .tag("outcome", "rejected")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("mp.publish").tag("outcome", "failed").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("mp.publish.duration")
                        .tag("outcome", "failed")
                        .timer()
                        .count())
                .isEqualTo(2);
    }

    @Test
    void everyPublishOutcomeIsThereAtZeroBeforeTheFirstPublish() {
        assertThat(registry.get("mp.publish").counters())
                .hasSize(3)
                .allSatisfy(c -> assertThat(c.count()).isZero());
    }

    @Test
    void pullsAcksAndClaimsAreCountedAndClaimsLabelledByResult() {
        metrics.pulled(metrics.start());
        metrics.acked();
        metrics.acked();
        metrics.leaseClaimed(metrics.start(), "granted");
        metrics.leaseClaimed(metrics.start(), "lease_held");

        assertThat(registry.get("mp.pull.duration").timer().count()).isEqualTo(1);
        assertThat(registry.get("mp.ack").counter().count()).isEqualTo(2);
        assertThat(registry.get("mp.lease.claim.duration")
                        .tag("result", "granted")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("mp.lease.claim.duration")
                        .tag("result", "lease_held")
                        .timer()
                        .count())
                .isEqualTo(1);
    }
}
