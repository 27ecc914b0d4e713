package io.monitorbackbone.protocol;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SeqTest {

    @Test
    void seqIsTheOffsetPlusOne() {
        assertThat(Seq.fromOffset(0)).isEqualTo(1);
        assertThat(Seq.offsetOf(1)).isZero();
        assertThat(Seq.offsetOf(0)).isZero();
    }

    @Test
    void sequenceIsTwentyDigitsAndSortsLikeTheSeq() {
        assertThat(Seq.sequence(203)).isEqualTo("00000000000000000203");
        assertThat(Seq.sequence(Long.MAX_VALUE)).hasSize(20);
        assertThat(Seq.sequence(9).compareTo(Seq.sequence(10))).isNegative();
    }
}
