package io.monitorbackbone.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Thread names as a profiled all-in-one server gives them, to the group each belongs to. */
class JfrSummaryTest {
    @Test
    void aKafkaClientsNetworkThreadBelongsToTheRoleWhoseClientItIs() {
        assertThat(JfrSummary.group("mp-projector-1")).isEqualTo("projector");
        assertThat(JfrSummary.group("kafka-producer-network-thread | mp-projector-vm-8130"))
                .isEqualTo("projector");
        assertThat(JfrSummary.group("kafka-coordinator-heartbeat-thread | mp-projector-logs"))
                .isEqualTo("projector");
        assertThat(JfrSummary.group("kafka-producer-network-thread | mp-leases-1c2-1bf-4-7aca-d3d4ba1-StreamThread-1"))
                .isEqualTo("leases service (Kafka Streams)");
        assertThat(JfrSummary.group("kafka-producer-network-thread | mp-bridge-vm-1-bridge1-2-7utqds"))
                .isEqualTo("bridge");
        assertThat(JfrSummary.group("kafka-producer-network-thread | mp-gateway-writer"))
                .isEqualTo("gateway: Kafka clients and follower");
        assertThat(JfrSummary.group("kafka-producer-network-thread | producer-1"))
                .isEqualTo("gateway: Kafka clients and follower");
        assertThat(JfrSummary.group("data-plane-kafka-request-handler-0")).isEqualTo("embedded broker");
    }
}
