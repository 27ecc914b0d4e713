package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

class TopicLayoutTest {
    private static final String EIGHT_MIB = String.valueOf(8 * 1024 * 1024);
    private final TopicLayout layout = new TopicLayout((short) 3, 2, 5);

    @Test
    void aTableIsCompactedAndTakesTheLargestRecord() {
        NewTopic table = layout.table(Topics.MONITORS);

        assertThat(table.name()).isEqualTo("mp.monitors");
        assertThat(table.numPartitions()).isEqualTo(2);
        assertThat(table.replicationFactor()).isEqualTo((short) 3);
        assertThat(table.configs()).isEqualTo(Map.of("cleanup.policy", "compact", "max.message.bytes", EIGHT_MIB));
    }

    @Test
    void aMonitorsLogHasOnePartitionAndIsKeptForeverUnlessItSaysOtherwise() {
        NewTopic forever = layout.monitorLog("ci", null);
        NewTopic daily = layout.monitorLog("ci", 86_400L);

        assertThat(forever.name()).isEqualTo("mp.obs.ci");
        assertThat(forever.numPartitions()).isEqualTo(1);
        assertThat(forever.replicationFactor()).isEqualTo((short) 3);
        assertThat(forever.configs()).isEqualTo(Map.of("max.message.bytes", EIGHT_MIB, "retention.ms", "-1"));
        assertThat(daily.configs()).containsEntry("retention.ms", "86400000");
    }

    @Test
    void theLeaseTopicsSpreadOverTheLeasePartitionsAndTheTablesAmongThemAreCompacted() {
        assertThat(layout.leaseTopics())
                .extracting(NewTopic::name)
                .containsExactly("mp.lease-commands", "mp.lease-replies", "mp.leases", "mp.lease-subjects");
        assertThat(layout.leaseTopics())
                .allSatisfy(t -> assertThat(t.numPartitions()).isEqualTo(5));
        assertThat(layout.leaseTopics())
                .filteredOn(t -> t.configs() != null && !t.configs().isEmpty())
                .extracting(NewTopic::name)
                .containsExactly("mp.leases", "mp.lease-subjects");
        assertThat(layout.leaseTopics().get(2).configs()).isEqualTo(Map.of("cleanup.policy", "compact"));
    }

    @Test
    void aStandaloneProjectorsStateTopicIsCompactedWithTheBrokersReplicationWhenAskedFor() {
        NewTopic state = new TopicLayout((short) -1, 1, 1).state(8);

        assertThat(state.name()).isEqualTo("mp.state");
        assertThat(state.numPartitions()).isEqualTo(8);
        assertThat(state.replicationFactor()).as("-1: the broker's default").isEqualTo((short) -1);
        assertThat(state.configs()).isEqualTo(Map.of("cleanup.policy", "compact"));
        assertThat(new NewTopic("x", Optional.of(1), Optional.empty()).replicationFactor())
                .isEqualTo((short) -1);
    }

    @Test
    void everyTopicCreatedCarriesTheConfiguredMinInsyncReplicas() {
        TopicLayout durable = TopicLayout.of(new Durability((short) 3, 2, false), 1, 3);

        assertThat(durable.table(Topics.CURSORS).configs()).containsEntry("min.insync.replicas", "2");
        assertThat(durable.monitorLog("ci", null).configs())
                .isEqualTo(Map.of("max.message.bytes", EIGHT_MIB, "retention.ms", "-1", "min.insync.replicas", "2"));
        assertThat(durable.leaseTopics())
                .allSatisfy(t -> assertThat(t.configs()).containsEntry("min.insync.replicas", "2"))
                .allSatisfy(t -> assertThat(t.replicationFactor()).isEqualTo((short) 3));
        assertThat(durable.state(8).configs()).containsEntry("min.insync.replicas", "2");
        assertThat(layout.table(Topics.CURSORS).configs())
                .as("unset: the broker's default")
                .doesNotContainKey("min.insync.replicas");
    }

    @Test
    void aLayoutThatCannotBeCreatedIsRefusedAtOnce() {
        assertThatThrownBy(() -> new TopicLayout((short) 2, 3, 1, 1)).hasMessageContaining("min.insync.replicas");
        assertThatThrownBy(() -> new TopicLayout((short) 0, 1, 1)).hasMessageContaining("replication factor");
        assertThatThrownBy(() -> new TopicLayout((short) 1, 0, 1)).hasMessageContaining("partitions");
        assertThatThrownBy(() -> new TopicLayout((short) 1, 1, 0)).hasMessageContaining("partitions");
    }

    @Test
    void theSweepersTopicHasOnePartitionWhateverTheTablesHave() {
        assertThat(layout.table(Topics.SWEEPER).numPartitions())
                .as("its group elects the one gateway that holds it")
                .isEqualTo(1);
        assertThat(layout.table(Topics.CURSORS).numPartitions()).isEqualTo(2);
    }

    @Test
    void aKeyBelongsWhereTheProducersPartitionerPutsIt() {
        for (String key : java.util.List.of("s-1", "s-2", "a9f0c2", "subscription-with-a-long-id-0042", "m.x")) {
            for (int partitions : new int[] {1, 3, 6, 12}) {
                // What KafkaProducer does with a keyed record and no partitioner configured.
                int producer = org.apache.kafka.clients.producer.internals.BuiltInPartitioner.partitionForKey(
                        key.getBytes(java.nio.charset.StandardCharsets.UTF_8), partitions);
                assertThat(TopicLayout.partitionOf(key, partitions))
                        .as("%s over %d", key, partitions)
                        .isEqualTo(producer);
            }
        }
        assertThat(TopicLayout.partitionOf("anything", 1)).isZero();
        assertThat(TopicLayout.KEYED_TABLES).containsExactly("mp.monitors", "mp.subscriptions", "mp.cursors");
    }
}
