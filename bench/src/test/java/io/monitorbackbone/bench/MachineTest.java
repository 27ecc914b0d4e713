package io.monitorbackbone.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run's commit: git's answer in a checkout, {@code unknown} outside one, never git's error message. */
class MachineTest {
    @Test
    void outsideACheckoutTheCommitIsUnknownAndTheTreeCountsAsDirty(@TempDir Path copy) {
        assertThat(Machine.commit(copy)).isEqualTo("unknown");
        assertThat(Machine.dirty(copy)).isTrue();
    }

    @Test
    void inThisCheckoutTheCommitIsAShortHash() {
        // The module's directory, inside the project's checkout (CI runs on a clone).
        assertThat(Machine.commit(Path.of("").toAbsolutePath())).matches("[0-9a-f]{7,40}");
    }
}
