package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability settings a start refuses with one line naming the setting, not with Kafka's error at the first create.
 * On three brokers: {@code ClusterFailoverIT}.
 */
class DurabilitySettingsIT {

    @Test
    void aMinInsyncReplicasAboveTheReplicationFactorIsOneClearLineBeforeAnythingStarts(@TempDir Path data)
            throws Exception {
        RefusedStart run = RefusedStart.run(data, Map.of("MP_REPLICATION_FACTOR", "1", "MP_MIN_INSYNC_REPLICAS", "2"));

        run.assertRefusedWith(
                "monitor-backbone cannot start: MP_MIN_INSYNC_REPLICAS is 2 but MP_REPLICATION_FACTOR is 1",
                "between 1 and 1");
        assertThat(data.resolve("kafka")).as("nothing started before the check").doesNotExist();
    }

    @Test
    void moreReplicasThanTheEmbeddedBrokerCanHoldIsOneClearLineNamingTheSetting(@TempDir Path data) throws Exception {
        RefusedStart run = RefusedStart.run(data, Map.of("MP_REPLICATION_FACTOR", "3", "MP_MIN_INSYNC_REPLICAS", "2"));

        run.assertRefusedWith(
                "monitor-backbone cannot start: MP_REPLICATION_FACTOR is 3 but the Kafka cluster has 1 broker",
                "set MP_REPLICATION_FACTOR to at most 1",
                "(the embedded broker; a cluster is KAFKA_BOOTSTRAP_SERVERS)");
        assertThat(data.resolve("kafka"))
                .as("refused before the broker started")
                .doesNotExist();
    }
}
