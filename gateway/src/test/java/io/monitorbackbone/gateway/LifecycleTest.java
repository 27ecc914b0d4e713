package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.leases.LeaseApp;
import io.monitorbackbone.projector.ProjectorConfig;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

/** What a failed thread of a hosted Streams app leads to. */
class LifecycleTest {
    @Test
    void aFailedLeasesOrProjectorThreadIsReplacedNotLeftDead() {
        // The failure seen under load: the Kafka consumer's own NullPointerException in a lag lookup.
        StreamsException clientBug =
                new StreamsException(new NullPointerException("element cannot be mapped to a null key"));
        Lifecycle lifecycle = new Lifecycle();

        assertThat(lifecycle.onThreadFailure(LeaseApp.APPLICATION_ID, clientBug))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
        assertThat(lifecycle.onThreadFailure(ProjectorConfig.GROUP_ID, clientBug))
                .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }

    @Test
    void aFencedInstanceIdIsFoundWhereverItIsInTheCauses() {
        assertThat(Lifecycle.fencedInstance(
                        new StreamsException(new IllegalStateException(new FencedInstanceIdException("taken")))))
                .isTrue();
        assertThat(Lifecycle.fencedInstance(new StreamsException(new NullPointerException())))
                .isFalse();
    }
}
