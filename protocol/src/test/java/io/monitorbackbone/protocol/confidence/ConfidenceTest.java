package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfidenceTest {
    @Test
    void theValueStaysNullWhileAnyInputIsMissing() {
        Confidence.Assessment a = Confidence.assess(1.0, 1.0, null, 0);

        assertThat(a.value()).isNull();
        assertThat(a.present())
                .containsExactly(
                        "observations", "ages", "actors", "contradictions_open", "corroboration", "track_record");
        assertThat(a.missing()).containsExactly("independence");
        assertThat(a.values()).containsOnlyKeys("corroboration", "track_record");
    }

    @Test
    void nothingComputedListsAllThreeAsMissingInTheReferenceOrder() {
        Confidence.Assessment a = Confidence.assess(null, null, null, 0);

        assertThat(a.missing()).isEqualTo(List.of("independence", "corroboration", "track_record"));
        assertThat(a.values()).isEmpty();
    }

    @Test
    void withEveryInputTheValueIsTheDocumentedFormula() {
        Confidence.Assessment a = Confidence.assess(0.5, 0.75, 0.25, 1);

        // 0.75 × (0.5 + 0.25) / 2 × 1 / (1 + 1)
        assertThat(a.value()).isEqualTo(0.1406);
        assertThat(a.missing()).isEmpty();
    }

    @Test
    void theValueIsComputedFromTheServedRoundedInputs() {
        Confidence.Assessment a = Confidence.assess(1.0 / 3, 1.0, 1.0 / 3, 0);

        assertThat(a.values().get("corroboration")).isEqualTo(0.3333);
        assertThat(a.value()).isEqualTo(0.3333);
    }
}
