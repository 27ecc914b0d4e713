package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProjectorConfigTest {
    private static final Map<String, String> CLUSTER = Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092");

    @Test
    void theLogsConsumerCommitsNothingReadsCommittedRowsAndRefreshesTheClusterOnlyAsAFallback() {
        Map<String, Object> c = ProjectorConfig.fromEnv(CLUSTER).consumerProperties(1);

        assertThat(c)
                .containsEntry("group.id", ProjectorConfig.GROUP_ID)
                .containsEntry("bootstrap.servers", "k:9092")
                .containsEntry("client.id", "mp-projector-logs-1")
                .containsEntry("enable.auto.commit", false)
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("auto.offset.reset", "earliest")
                .containsEntry("allow.auto.create.topics", false)
                .doesNotContainKey("group.instance.id");
        assertThat(c.get("metadata.max.age.ms"))
                .as("NewMonitorTopics finds new logs; asking for every topic every second or two cost an idle server")
                .isEqualTo("60000");
        assertThat(String.valueOf(c.get("partition.assignment.strategy")))
                .as("a new monitor's log is assigned without taking the others from their loops")
                .contains("CooperativeStickyAssignor");
        assertThat(ProjectorConfig.GROUP_ID)
                .as("a consumer cannot join the group of the Streams app that folded the logs before")
                .isNotEqualTo(ProjectorConfig.APPLICATION_ID);
    }

    @Test
    void theMonitorsTableReaderIsAPlainConsumerThatWaitsInKafkaAndCreatesNoTopic() {
        Map<String, Object> c = ProjectorConfig.fromEnv(Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                        "MP_PROJECTOR_INSTANCE_ID", "projector-0",
                        "MP_PROJECTOR_KAFKA_SECURITY_PROTOCOL", "SSL"))
                .newMonitorTopicsProperties(2);

        assertThat(c)
                .containsEntry("client.id", "mp-projector-monitors-2")
                .containsEntry("fetch.max.wait.ms", NewMonitorTopics.FETCH_MAX_WAIT_MS)
                .containsEntry("allow.auto.create.topics", false)
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("security.protocol", "SSL")
                .containsEntry("bootstrap.servers", "k:9092")
                .doesNotContainKeys("group.id", "group.instance.id", "application.id");
    }

    @Test
    void theStateReaderIsAssignedItsPartitionsAndJoinsNoGroup() {
        Map<String, Object> c = ProjectorConfig.fromEnv(Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                        "MP_PROJECTOR_INSTANCE_ID", "projector-0",
                        "MP_PROJECTOR_KAFKA_GROUP_ID", "own"))
                .stateReaderProperties(1);

        assertThat(c)
                .containsEntry("client.id", "mp-projector-projector-0-states-1")
                .containsEntry("enable.auto.commit", false)
                .doesNotContainKeys("group.id", "group.instance.id");
    }

    @Test
    void theStatesAreWrittenWithEveryReplicasAcknowledgementAndNeverReordered() {
        Map<String, Object> p = ProjectorConfig.fromEnv(CLUSTER).producerProperties();

        assertThat(p)
                .containsEntry("acks", "all")
                .containsEntry("enable.idempotence", true)
                .containsEntry("client.id", "mp-projector")
                .doesNotContainKeys("group.id", "group.instance.id");
    }

    @Test
    void theAggregatesAFoldLoopHoldsAreBoundedAndSettable() {
        assertThat(ProjectorConfig.fromEnv(Map.of()).held()).isEqualTo(Projector.DEFAULT_HELD);
        assertThat(ProjectorConfig.fromEnv(Map.of("MP_PROJECTOR_HELD", "500")).held())
                .isEqualTo(500);
        assertThat(ProjectorConfig.hosted("k:9092", "g", 8, 1).held()).isEqualTo(Projector.DEFAULT_HELD);
        assertThatThrownBy(() -> ProjectorConfig.fromEnv(Map.of("MP_PROJECTOR_HELD", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MP_PROJECTOR_HELD");
    }

    @Test
    void theProjectorAGatewayHostsWritesOftenAndKeepsItsMemberId() {
        ProjectorConfig hosted = ProjectorConfig.hosted("k:9092", "gateway-8130", 8, 1);

        assertThat(hosted.commitIntervalMs()).isEqualTo(100L);
        assertThat(hosted.threads()).isEqualTo(1);
        assertThat(hosted.stateTopicPartitions()).isEqualTo(8);
        assertThat(hosted.consumerProperties(1))
                .containsEntry("group.instance.id", "gateway-8130-1")
                .containsEntry("client.id", "mp-projector-gateway-8130-logs-1");
    }

    @Test
    void aStableInstanceIdTurnsOnStaticMembershipAndKafkaSettingsPassThrough() {
        ProjectorConfig c = ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "MP_PROJECTOR_INSTANCE_ID", "projector-0",
                "MP_PROJECTOR_PARTITIONS", "16",
                "MP_PROJECTOR_THREADS", "2",
                "MP_PROJECTOR_KAFKA_SECURITY_PROTOCOL", "SSL"));

        assertThat(c.consumerProperties(2))
                .containsEntry("group.instance.id", "projector-0-2")
                .containsEntry("security.protocol", "SSL");
        assertThat(c.stateTopicPartitions()).isEqualTo(16);
        assertThat(c.threads()).isEqualTo(2);
    }

    @Test
    void aGroupNamedByAnEarlierVersionsApplicationIdKeepsTwoBackbonesOnOneClusterApart() {
        assertThat(ProjectorConfig.fromEnv(Map.of(
                                "KAFKA_BOOTSTRAP_SERVERS", "k:9092", "MP_PROJECTOR_KAFKA_APPLICATION_ID", "other"))
                        .consumerProperties(1))
                .containsEntry("group.id", "other-logs")
                .doesNotContainKey("application.id");
    }

    @Test
    void theFoldReadsTheLogsInFetchesOfAtLeast64KiBUnlessToldOtherwise() {
        Map<String, Object> standAlone = ProjectorConfig.fromEnv(CLUSTER).consumerProperties(1);
        Map<String, Object> hosted = ProjectorConfig.hosted("k:9092", "g", 8, 1).consumerProperties(1);
        Map<String, Object> told = ProjectorConfig.fromEnv(
                        Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092", "MP_PROJECTOR_KAFKA_FETCH_MIN_BYTES", "1"))
                .consumerProperties(1);

        assertThat(standAlone.get("fetch.min.bytes")).isEqualTo("65536");
        assertThat(hosted.get("fetch.min.bytes")).isEqualTo("65536");
        assertThat(standAlone)
                .as("the fetch's wait stays the client's 500 ms default, so an idle projector fetches no more often")
                .doesNotContainKey("fetch.max.wait.ms");
        assertThat(told.get("fetch.min.bytes")).isEqualTo("1");
    }

    @Test
    void everyClientsPropertiesPassThroughAndTheProjectorsOwnWin() {
        ProjectorConfig config = ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "MP_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "MP_KAFKA_LINGER_MS", "5",
                "MP_KAFKA_PORT", "9130",
                "MP_PROJECTOR_KAFKA_LINGER_MS", "20"));

        assertThat(config.producerProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("linger.ms", "20")
                .doesNotContainKey("port");
        assertThat(config.adminProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("bootstrap.servers", "k:9092");
    }

    @Test
    void theHostedProjectorsClientsGetWhatTheGatewaysGet() {
        ProjectorConfig c = ProjectorConfig.hosted(
                io.monitorbackbone.binding.KafkaClients.of("k:9092", Map.of("MP_KAFKA_SECURITY_PROTOCOL", "SSL")),
                "gateway-8130",
                8,
                1);

        assertThat(c.consumerProperties(1))
                .containsEntry("security.protocol", "SSL")
                .containsEntry("bootstrap.servers", "k:9092");
        assertThat(c.producerProperties()).containsEntry("security.protocol", "SSL");
    }

    @Test
    void theStateTopicTakesTheServersReplicationUnlessTheProjectorSaysOtherwise() {
        ProjectorConfig shared = ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092", "MP_REPLICATION_FACTOR", "3", "MP_MIN_INSYNC_REPLICAS", "2"));
        ProjectorConfig own = ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "MP_REPLICATION_FACTOR", "3",
                "MP_PROJECTOR_REPLICATION_FACTOR", "5"));

        assertThat(shared.replicationFactor()).isEqualTo(3);
        assertThat(shared.durability().minInsyncReplicas()).isEqualTo(2);
        assertThat(own.replicationFactor()).isEqualTo(5);
        assertThat(ProjectorConfig.fromEnv(CLUSTER).replicationFactor())
                .as("the broker's default when nothing is set")
                .isEqualTo(-1);
    }

    @Test
    void aNumberThatIsNotOneIsRefusedByName() {
        assertThatThrownBy(() -> ProjectorConfig.fromEnv(Map.of("MP_PROJECTOR_PARTITIONS", "many")))
                .hasMessageContaining("MP_PROJECTOR_PARTITIONS");
    }
}
