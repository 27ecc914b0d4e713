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

    private static org.apache.kafka.common.Metric value(org.apache.kafka.common.MetricName name, double v) {
        return new org.apache.kafka.common.Metric() {
            @Override
            public org.apache.kafka.common.MetricName metricName() {
                return name;
            }

            @Override
            public Object metricValue() {
                return v;
            }
        };
    }

    @Test
    void aClientsMetricsOfMonitorsTopicsNeverReachTheBinderAndTheRestIsBound() {
        org.apache.kafka.clients.producer.MockProducer<String, byte[]> producer =
                new org.apache.kafka.clients.producer.MockProducer<>();
        org.apache.kafka.common.MetricName total = new org.apache.kafka.common.MetricName(
                "record-send-total", "producer-metrics", "", java.util.Map.of("client-id", "mp-gateway"));
        org.apache.kafka.common.MetricName ofTable = new org.apache.kafka.common.MetricName(
                "record-send-total",
                "producer-topic-metrics",
                "",
                java.util.Map.of("client-id", "mp-gateway", "topic", Topics.MONITORS));
        org.apache.kafka.common.MetricName ofLog = new org.apache.kafka.common.MetricName(
                "record-send-total",
                "producer-topic-metrics",
                "",
                java.util.Map.of("client-id", "mp-gateway", "topic", Topics.obs("ci")));
        producer.setMockMetrics(total, value(total, 3));
        producer.setMockMetrics(ofTable, value(ofTable, 2));
        producer.setMockMetrics(ofLog, value(ofLog, 1));

        @SuppressWarnings("unchecked")
        org.apache.kafka.clients.producer.Producer<String, byte[]> view =
                Meters.withoutMonitorTopics(org.apache.kafka.clients.producer.Producer.class, producer);
        assertThat(view.metrics().keySet()).containsExactlyInAnyOrder(total, ofTable);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> view.flush())
                .isInstanceOf(UnsupportedOperationException.class);

        io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics binder =
                new io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics(view)) {
            binder.bindTo(registry);
            assertThat(registry.get("kafka.producer.record.send.total")
                            .functionCounter()
                            .count())
                    .isEqualTo(3.0);
            assertThat(registry.get("kafka.producer.topic.record.send.total").functionCounters())
                    .extracting(c -> c.getId().getTag("topic"))
                    .containsExactly(Topics.MONITORS);
        }
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
