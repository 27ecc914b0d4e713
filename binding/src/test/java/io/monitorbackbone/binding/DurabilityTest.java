package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DurabilityTest {

    @Test
    void unsetSettingsAreOneReplicaAndTheBrokersMinInsyncReplicas() {
        Durability d = Durability.fromEnvironment(Map.of(), (short) 1);

        assertThat(d).isEqualTo(new Durability((short) 1, Durability.UNSET, false));
        assertThat(d.streamsConfigs()).isEqualTo(Map.of("replication.factor", 1));
    }

    @Test
    void theSettingsAreReadFromTheirVariables() {
        Durability d = Durability.fromEnvironment(
                Map.of(
                        "MP_REPLICATION_FACTOR", "3",
                        "MP_MIN_INSYNC_REPLICAS", "2",
                        "MP_ALLOW_SINGLE_REPLICA", "true"),
                (short) 1);

        assertThat(d).isEqualTo(new Durability((short) 3, 2, true));
        assertThat(d.streamsConfigs())
                .as("Streams' internal topics are created with the same copies and the same min ISR")
                .isEqualTo(Map.of("replication.factor", 3, "topic.min.insync.replicas", "2"));
    }

    @Test
    void aMinInsyncReplicasOutsideOneToTheReplicationFactorIsRefusedNamingBoth() {
        assertThatThrownBy(() -> Durability.parse("2", (short) 1, "3", null))
                .isInstanceOf(Durability.Refused.class)
                .hasMessageContaining("MP_MIN_INSYNC_REPLICAS is 3 but MP_REPLICATION_FACTOR is 2")
                .hasMessageContaining("between 1 and 2");
        assertThatThrownBy(() -> Durability.parse("3", (short) 1, "0", null))
                .isInstanceOf(Durability.Refused.class)
                .hasMessageContaining("MP_MIN_INSYNC_REPLICAS must be at least 1");
        assertThatThrownBy(() -> Durability.parse("3", (short) 1, "two", null))
                .hasMessageContaining("MP_MIN_INSYNC_REPLICAS must be an integer, not 'two'");
        assertThatThrownBy(() -> Durability.parse("0", (short) 1, null, null))
                .hasMessageContaining("MP_REPLICATION_FACTOR must be at least 1");
        assertThatThrownBy(() -> Durability.parse("1", (short) 1, null, "yes please"))
                .hasMessageContaining("MP_ALLOW_SINGLE_REPLICA must be true or false");
        assertThat(Durability.parse("3", (short) 1, "3", "false")).isEqualTo(new Durability((short) 3, 3, false));
    }

    @Test
    void oneReplicaIsFineOnOneOrTwoBrokersAndRefusedOnThreeOrMoreUnlessAllowed() {
        Durability one = Durability.of((short) 1);

        assertThat(one.refusal(1)).isEmpty();
        assertThat(one.refusal(2)).isEmpty();
        assertThat(one.refusal(3))
                .hasValueSatisfying(m -> assertThat(m)
                        .contains("MP_REPLICATION_FACTOR is 1 on a Kafka cluster of 3 brokers")
                        .contains("MP_ALLOW_SINGLE_REPLICA=true"));
        assertThat(one.refusal(7)).isPresent();
        assertThat(new Durability((short) 1, Durability.UNSET, true).refusal(5)).isEmpty();
    }

    @Test
    void moreReplicasThanBrokersIsRefusedWithTheSettingsNamesNotKafkas() {
        assertThat(new Durability((short) 3, 2, false).refusal(1))
                .hasValueSatisfying(m -> assertThat(m)
                        .isEqualTo("MP_REPLICATION_FACTOR is 3 but the Kafka cluster has 1 broker, which cannot hold 3"
                                + " copies of a topic; set MP_REPLICATION_FACTOR to at most 1 and MP_MIN_INSYNC_REPLICAS"
                                + " to at most 1"));
        assertThat(Durability.of((short) 3).refusal(2))
                .hasValueSatisfying(m -> assertThat(m).endsWith("set MP_REPLICATION_FACTOR to at most 2"));
        assertThat(new Durability((short) 3, 2, false).refusal(3)).isEmpty();
        assertThat(Durability.of((short) 3).refusal(5)).isEmpty();
    }

    @Test
    void theBrokersDefaultReplicationIsLeftToTheBroker() {
        Durability brokers = Durability.of((short) -1);

        assertThat(brokers.refusal(1)).isEmpty();
        assertThat(brokers.refusal(3)).isEmpty();
        assertThat(new Durability((short) -1, 2, false).minInsyncReplicas()).isEqualTo(2);
    }
}
