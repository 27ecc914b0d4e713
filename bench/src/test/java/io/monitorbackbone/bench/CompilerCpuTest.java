package io.monitorbackbone.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CompilerCpuTest {

    @Test
    void aCompilerThreadThatEndedKeepsItsSecondsSoAWindowNeverComesOutNegative() {
        CompilerCpu jit = new CompilerCpu();
        double before = jit.total(7, Map.of(11L, 2.0, 12L, 1.5));
        assertThat(before).isEqualTo(3.5);
        // thread 12 ended (HotSpot removes idle compiler threads), 11 compiled on, a new thread 13 started
        double after = jit.total(7, Map.of(11L, 2.25, 13L, 0.5));
        assertThat(after).isEqualTo(4.25);
        assertThat(after - before).isEqualTo(0.75);
    }

    @Test
    void aRestartedServerCountsFromItsOwnThreadsOnly() {
        CompilerCpu jit = new CompilerCpu();
        jit.total(7, Map.of(11L, 2.0));
        assertThat(jit.total(8, Map.of(11L, 0.25))).isEqualTo(0.25);
    }
}
