package io.monitorbackbone.projector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProjectorConfigTest {
    @Test
    void theClusterMetadataIsRefreshedOnlyAsAFallbackForNewMonitorTopics() {
        Properties p = ProjectorConfig.fromEnv(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092"))
                .streamsProperties();

        assertThat(p.get("main.consumer.metadata.max.age.ms"))
                .as("NewMonitorTopics finds new logs; asking for every topic every second or two cost an idle server")
                .isEqualTo("60000");
        assertThat(p.get("application.id")).isEqualTo("mp-projector");
        assertThat(p.get("bootstrap.servers")).isEqualTo("k:9092");
        assertThat(p).doesNotContainKey("main.consumer.group.instance.id");
        assertThat(p.get("main.consumer.isolation.level"))
                .as("aborted lease rows are not in the served log")
                .isEqualTo("read_committed");
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
    void theAggregatesAFoldTaskHoldsAreBoundedAndSettable() {
        assertThat(ProjectorConfig.fromEnv(Map.of()).held()).isEqualTo(ProjectorTopology.DEFAULT_HELD);
        assertThat(ProjectorConfig.fromEnv(Map.of("MP_PROJECTOR_HELD", "500")).held())
                .isEqualTo(500);
        assertThat(ProjectorConfig.hosted("k:9092", "/d", "g", 8, 1).held()).isEqualTo(ProjectorTopology.DEFAULT_HELD);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> ProjectorConfig.fromEnv(Map.of("MP_PROJECTOR_HELD", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MP_PROJECTOR_HELD");
    }

    @Test
    void anIdleStreamThreadWaitsASecondInItsPollWhateverTheCommitInterval() {
        Properties standAlone = ProjectorConfig.fromEnv(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092"))
                .streamsProperties();
        Properties hosted = ProjectorConfig.hosted("k:9092", "/d", "g", 8, 1).streamsProperties();

        assertThat(standAlone.get("poll.ms")).isEqualTo(ProjectorConfig.IDLE_POLL_MS);
        assertThat(hosted.get("poll.ms")).isEqualTo(ProjectorConfig.IDLE_POLL_MS);
        assertThat(ProjectorConfig.IDLE_POLL_MS).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void theProjectorAGatewayHostsCommitsOftenAndKeepsItsMemberId() {
        Properties p = ProjectorConfig.hosted("k:9092", "/data/streams/projector-8130", "gateway-8130", 8, 1)
                .streamsProperties();

        assertThat(p.get("commit.interval.ms")).isEqualTo(100L);
        assertThat(p.get("main.consumer.group.instance.id")).isEqualTo("gateway-8130");
        assertThat(p.get("num.stream.threads")).isEqualTo(1);
    }

    @Test
    void aStableInstanceIdTurnsOnStaticMembershipAndKafkaSettingsPassThrough() {
        Properties p = ProjectorConfig.fromEnv(Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                        "MP_PROJECTOR_INSTANCE_ID", "projector-0",
                        "MP_PROJECTOR_STATE_DIR", "/var/lib/projector",
                        "MP_PROJECTOR_PARTITIONS", "16",
                        "MP_PROJECTOR_KAFKA_SECURITY_PROTOCOL", "SSL"))
                .streamsProperties();

        assertThat(p.get("main.consumer.group.instance.id")).isEqualTo("projector-0");
        assertThat(p.get("state.dir")).isEqualTo("/var/lib/projector");
        assertThat(p.get("security.protocol")).isEqualTo("SSL");
    }

    @Test
    void theFoldReadsTheLogsInFetchesOfAtLeast64KiBUnlessToldOtherwise() {
        Properties standAlone = ProjectorConfig.fromEnv(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092"))
                .streamsProperties();
        Properties hosted = ProjectorConfig.hosted("k:9092", "/d", "g", 8, 1).streamsProperties();
        Properties told = ProjectorConfig.fromEnv(Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS", "k:9092", "MP_PROJECTOR_KAFKA_MAIN_CONSUMER_FETCH_MIN_BYTES", "1"))
                .streamsProperties();

        assertThat(standAlone.get("main.consumer.fetch.min.bytes")).isEqualTo("65536");
        assertThat(hosted.get("main.consumer.fetch.min.bytes")).isEqualTo("65536");
        assertThat(standAlone)
                .as("the fetch's wait stays the client's 500 ms default, so an idle projector fetches no more often")
                .doesNotContainKey("main.consumer.fetch.max.wait.ms")
                .doesNotContainKey("fetch.max.wait.ms");
        assertThat(told.get("main.consumer.fetch.min.bytes")).isEqualTo("1");
    }

    @Test
    void everyClientsPropertiesPassThroughAndTheProjectorsOwnWin() {
        ProjectorConfig config = ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "MP_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "MP_KAFKA_LINGER_MS", "5",
                "MP_KAFKA_PORT", "9130",
                "MP_PROJECTOR_KAFKA_LINGER_MS", "20"));

        assertThat(config.streamsProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("linger.ms", "20")
                .doesNotContainKey("port");
        assertThat(config.adminProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("bootstrap.servers", "k:9092");
    }

    @Test
    void theHostedProjectorsClientsGetWhatTheGatewaysGet() {
        Properties p = ProjectorConfig.hosted(
                        io.monitorbackbone.binding.KafkaClients.of(
                                "k:9092", Map.of("MP_KAFKA_SECURITY_PROTOCOL", "SSL")),
                        "/data/streams/projector-8130",
                        "gateway-8130",
                        8,
                        1)
                .streamsProperties();

        assertThat(p.get("security.protocol")).isEqualTo("SSL");
        assertThat(p.get("bootstrap.servers")).isEqualTo("k:9092");
    }

    @Test
    void theInternalTopicsTakeTheServersReplicationAndMinInsyncReplicasUnlessTheProjectorSaysOtherwise() {
        Properties shared = ProjectorConfig.fromEnv(Map.of(
                        "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                        "MP_REPLICATION_FACTOR", "3",
                        "MP_MIN_INSYNC_REPLICAS", "2"))
                .streamsProperties();
        ProjectorConfig own = ProjectorConfig.fromEnv(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "MP_REPLICATION_FACTOR", "3",
                "MP_PROJECTOR_REPLICATION_FACTOR", "5"));
        Properties hosted = ProjectorConfig.hosted(
                        io.monitorbackbone.binding.KafkaClients.of("k:9092"),
                        "/data/streams/projector-8130",
                        "gateway-8130",
                        8,
                        new io.monitorbackbone.binding.Durability((short) 3, 2, false))
                .streamsProperties();

        assertThat(shared).containsEntry("replication.factor", 3).containsEntry("topic.min.insync.replicas", "2");
        assertThat(own.replicationFactor()).isEqualTo(5);
        assertThat(hosted).containsEntry("replication.factor", 3).containsEntry("topic.min.insync.replicas", "2");
        assertThat(ProjectorConfig.fromEnv(Map.of("KAFKA_BOOTSTRAP_SERVERS", "k:9092"))
                        .replicationFactor())
                .as("the broker's default when nothing is set")
                .isEqualTo(-1);
    }

    @Test
    void aNumberThatIsNotOneIsRefusedByName() {
        assertThatThrownBy(() -> ProjectorConfig.fromEnv(Map.of("MP_PROJECTOR_PARTITIONS", "many")))
                .hasMessageContaining("MP_PROJECTOR_PARTITIONS");
    }
}
