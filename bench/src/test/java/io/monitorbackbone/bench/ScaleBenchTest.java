package io.monitorbackbone.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Scenario 13's pure parts: the gateway counts of {@code --gateways} and the sums it reads off {@code /q/metrics}. */
class ScaleBenchTest {

    @Test
    void gatewaysIsOneToNInAFullRunAndOnlyNInAQuickOne() {
        assertThat(Bench.gatewayCounts(null, false)).containsExactly(1, 2, 3);
        assertThat(Bench.gatewayCounts("4", false)).containsExactly(1, 2, 3, 4);
        assertThat(Bench.gatewayCounts(null, true)).containsExactly(2);
        assertThat(Bench.gatewayCounts("3", true)).containsExactly(3);
        assertThat(Bench.gatewayCounts("2,3", false)).containsExactly(2, 3);
        assertThatThrownBy(() -> Bench.gatewayCounts("0", false)).isInstanceOf(BenchError.class);
        assertThatThrownBy(() -> Bench.gatewayCounts("two", false))
                .isInstanceOf(BenchError.class)
                .hasMessageContaining("--gateways");
    }

    @Test
    void theMetersSumEachClientOnceAndEachTopicOnceUnderEitherOfItsTwoNames() {
        String text = String.join(
                "\n",
                List.of(
                        "# TYPE kafka_consumer_incoming_byte_total counter",
                        "kafka_consumer_incoming_byte_total{client_id=\"mp-follower\",kafka_version=\"4.1.2\"} 1000.0",
                        "kafka_consumer_incoming_byte_total{client_id=\"mp-lease-replies\",kafka_version=\"4.1.2\"} 200.0",
                        // Per broker: the same bytes again, not added.
                        "kafka_consumer_node_incoming_byte_total{client_id=\"mp-follower\",node_id=\"node-1\"} 1000.0",
                        "kafka_producer_incoming_byte_total{client_id=\"producer-1\"} 30.0",
                        "kafka_producer_node_incoming_byte_total{client_id=\"producer-1\",node_id=\"node-1\"} 30.0",
                        "kafka_admin_client_incoming_byte_total{client_id=\"adminclient-1\"} 4.0",
                        "kafka_producer_outgoing_byte_total{client_id=\"producer-1\"} 500.0",
                        // One topic under its two names: counted once.
                        "kafka_consumer_fetch_manager_bytes_consumed_total{client_id=\"mp-follower\",topic=\"mp.cursors\"} 70.0",
                        "kafka_consumer_fetch_manager_bytes_consumed_total{client_id=\"mp-follower\",topic=\"mp_cursors\"} 70.0",
                        "kafka_consumer_fetch_manager_bytes_consumed_total{client_id=\"mp-follower\",topic=\"mp_state\"} 9.0",
                        // A monitor's log is not a table.
                        "kafka_consumer_fetch_manager_bytes_consumed_total{client_id=\"mp-follower\",topic=\"mp.obs.a\"} 400.0",
                        "kafka_consumer_fetch_manager_bytes_consumed_total{client_id=\"mp-follower\"} 479.0",
                        "kafka_consumer_fetch_manager_records_lag{client_id=\"mp-follower\"} NaN",
                        "mp_follower_logs 3.0",
                        ""));

        ScaleBench.KafkaMeters m = ScaleBench.KafkaMeters.parse(text);

        assertThat(m.incoming()).isEqualTo(1234.0);
        assertThat(m.produced()).isEqualTo(500.0);
        assertThat(m.fetchedTables()).isEqualTo(79.0);
        assertThat(m.tables()).containsEntry("mp_cursors", 70.0).containsEntry("mp_state", 9.0);
        assertThat(m.tables()).doesNotContainKey("mp_obs_a");
        assertThat(m.followerLogs()).isEqualTo(3.0);
    }
}
