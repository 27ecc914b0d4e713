package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
        for (long seq : new long[] {0, 1, 99, 1_000_000, 12_345_678_901L, Long.MAX_VALUE, -7}) {
            assertThat(Seq.sequence(seq)).isEqualTo(String.format("%020d", seq));
        }
    }
}
