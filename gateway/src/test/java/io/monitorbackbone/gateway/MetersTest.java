package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.monitorbackbone.binding.Topics;
import org.junit.jupiter.api.Test;

/** Kafka's meters of a monitor's topic would be one series per monitor: they are dropped, the tables' kept. */
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
}
