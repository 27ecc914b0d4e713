package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.monitorbackbone.binding.Topics;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Kafka's meters of a monitor's topic would be one series per monitor: they are dropped, the tables' kept. A close
 * returns only once no Streams metrics refresh is still reading the stores the apps close next.
 */
class MetersTest {
    private static Meter.Id kafka(Tags tags) {
        return new Meter.Id("kafka.consumer.fetch.manager.records.lag", tags, null, null, Meter.Type.GAUGE);
    }

    @Test
    void aMetersOfAMonitorsTopicIsDroppedAndTheTablesAndTotalsAreKept() {
        assertThat(Meters.perMonitor(kafka(Tags.of("topic", Topics.obs("ci"), "partition", "0"))))
                .isTrue();
        assertThat(Meters.perMonitor(kafka(Tags.of("topic", Topics.MONITORS, "partition", "0"))))
                .isFalse();
        assertThat(Meters.perMonitor(kafka(Tags.of("client.id", "mp-gateway")))).isFalse();
    }

    @Test
    void closeReturnsOnlyAfterTheStreamsMetricsRefreshInFlightHasEnded() throws Exception {
        Meters meters = new Meters();
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean ended = new AtomicBoolean();
        // A refresh stuck in a native read: an interrupt does not stop it.
        meters.streamsMetricsScheduler().submit(() -> {
            running.countDown();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            ended.set(true);
        });
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

        meters.close();

        assertThat(ended).as("the refresh had ended when close returned").isTrue();
        assertThat(meters.streamsMetricsScheduler().isTerminated()).isTrue();
    }
}
