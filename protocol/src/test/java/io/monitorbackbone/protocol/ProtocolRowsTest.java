package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProtocolRowsTest {
    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");

    @Test
    void aNameTheCallerChoseNeverEarnsAHumanOrigin() {
        Monitor m = PublicationsTest.monitor("agent:owner");

        Draft row = ProtocolRows.row(m, Vocabulary.SUBSCRIBED, "human:mallory", null, Json.object(), false, NOW);

        assertThat(row.origin()).isEqualTo("agent");
        assertThat(row.verified()).isEqualTo("unverified");
        assertThat(row.data().at("/provenance/verification").asText()).isEqualTo("unverified");
    }

    @Test
    void noProtocolRowClaimsHumanVerification() {
        Monitor m = PublicationsTest.monitor("human:alice");

        Draft row = ProtocolRows.row(m, Vocabulary.CONFIGURED, "human:alice", null, Json.object(), true, NOW);

        assertThat(row.origin()).isEqualTo("human");
        assertThat(row.verified()).isEqualTo("reported");
    }

    @Test
    void aRejectionKeepsTheRawBody() {
        Monitor m = PublicationsTest.monitor("human:alice");
        ObjectNode raw = PublicationsTest.body("{\"type\":\"x\",\"tier\":\"bogus\"}");

        Draft row = ProtocolRows.rejected(
                m, ProtocolException.of(ErrorCode.UNKNOWN_VOCABULARY, "invalid values"), raw, "agent:x", null, NOW);

        assertThat(row.type()).isEqualTo(Vocabulary.REJECTED);
        assertThat(row.actor()).isEqualTo("system:guard");
        assertThat(row.data().at("/payload/raw")).isEqualTo(raw);
        assertThat(row.data().at("/payload/code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
    }
}
