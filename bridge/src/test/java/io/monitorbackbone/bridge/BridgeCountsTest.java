package io.monitorbackbone.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BridgeCountsTest {
    @Test
    void countsRoundTripThroughTheOffsetMetadata() {
        BridgeCounts n = BridgeCounts.ZERO.plus(3, 0, 0).plus(0, 1, 0).plus(0, 0, 2);
        assertThat(n.metadata()).isEqualTo("{\"bridged\":3,\"rejected\":1,\"dead_lettered\":2}");
        assertThat(BridgeCounts.parse(n.metadata())).isEqualTo(n);
    }

    @Test
    void metadataThatIsNotTheBridgesCountsNothing() {
        assertThat(BridgeCounts.parse(null)).isNull();
        assertThat(BridgeCounts.parse("")).isNull();
        assertThat(BridgeCounts.parse("something else")).isNull();
        assertThat(BridgeCounts.parse("{\"bridged\":1}")).isNull();
        assertThat(BridgeCounts.parse("{not json")).isNull();
    }
}
