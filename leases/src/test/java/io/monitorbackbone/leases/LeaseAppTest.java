package io.monitorbackbone.leases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseAppTest {

    @Test
    void theEnvironmentNamesTheClusterTheStateAndTheInstance(@TempDir Path data) {
        LeaseApp.Settings settings = LeaseApp.Settings.fromEnvironment(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                "broker:9092",
                "MP_DATA",
                data.toString(),
                "MP_LEASES_INSTANCE_ID",
                "leases-0",
                "MP_LEASE_PARTITIONS",
                "6",
                "MP_REPLICATION_FACTOR",
                "3",
                "MP_LEASES_COMMIT_INTERVAL_MS",
                "20"));

        assertThat(settings)
                .isEqualTo(new LeaseApp.Settings("broker:9092", data.resolve("leases"), "leases-0", 6, (short) 3, 20));
    }

    @Test
    void theStreamThreadIsAskedToWaitTheIdlePollNotTheCommitInterval(@TempDir Path state) {
        var config = LeaseApp.config(new LeaseApp.Settings("broker:9092", state, "leases-0", 3, (short) 1, 10));

        assertThat(config).containsEntry(StreamsConfig.POLL_MS_CONFIG, LeaseApp.IDLE_POLL_MS);
        assertThat(LeaseApp.IDLE_POLL_MS).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void withoutAClusterThereIsNothingToRun() {
        assertThatThrownBy(() -> LeaseApp.Settings.fromEnvironment(Map.of()))
                .hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    }

    @Test
    void theAppProcessesExactlyOnceWithAStableMembership(@TempDir Path state) {
        Properties config = LeaseApp.config(new LeaseApp.Settings("broker:9092", state, "leases-0", 3, (short) 1, 100));

        assertThat(config)
                .containsEntry(StreamsConfig.APPLICATION_ID_CONFIG, "mp-leases")
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
                .containsEntry(StreamsConfig.STATE_DIR_CONFIG, state.toString())
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "leases-0")
                .containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100L);
        assertThat(new StreamsConfig(config).getString(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
                .isEqualTo("exactly_once_v2");
    }

    @Test
    void theInternalTopicsTakeTheConfiguredReplicationAndMinInsyncReplicas(@TempDir Path data) {
        LeaseApp.Settings settings = LeaseApp.Settings.fromEnvironment(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "broker:9092",
                "MP_DATA", data.toString(),
                "MP_REPLICATION_FACTOR", "3",
                "MP_MIN_INSYNC_REPLICAS", "2"));

        Properties config = LeaseApp.config(settings);

        assertThat(config)
                .containsEntry(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3)
                .containsEntry(StreamsConfig.topicPrefix("min.insync.replicas"), "2");
        assertThat(new StreamsConfig(config).getInt(StreamsConfig.REPLICATION_FACTOR_CONFIG))
                .isEqualTo(3);
        assertThatThrownBy(() -> LeaseApp.Settings.fromEnvironment(Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS", "broker:9092",
                        "MP_DATA", data.toString(),
                        "MP_REPLICATION_FACTOR", "2",
                        "MP_MIN_INSYNC_REPLICAS", "3")))
                .hasMessageContaining("MP_MIN_INSYNC_REPLICAS is 3 but MP_REPLICATION_FACTOR is 2");
    }

    @Test
    void everyClientsPropertiesPassThroughToTheStreamsClient(@TempDir Path data) {
        LeaseApp.Settings settings = LeaseApp.Settings.fromEnvironment(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                "broker:9092",
                "MP_DATA",
                data.toString(),
                "MP_KAFKA_SECURITY_PROTOCOL",
                "SSL",
                "MP_KAFKA_PORT",
                "9130"));

        assertThat(LeaseApp.config(settings))
                .containsEntry("security.protocol", "SSL")
                .containsEntry(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092")
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
                .doesNotContainKey("port");
    }
}
