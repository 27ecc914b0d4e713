package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class MonitorDefinitionsTest {
    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");

    @Test
    void anEmptyRequestGetsTheProtocolsDefaults() {
        MonitorDefinitions.Created c = MonitorDefinitions.create("p-1", PublicationsTest.body("{}"), NOW, false);
        Monitor m = c.monitor();

        assertThat(m.owner()).isEqualTo("agent:owner");
        assertThat(m.visibility()).isEqualTo("private");
        assertThat(m.horizon()).isEqualTo("event");
        assertThat(m.capabilities()).containsExactly("observe");
        assertThat(m.defaultGrant()).containsExactly("observe");
        assertThat(m.source().get("kind").asText()).isEqualTo("log");
        assertThat(c.subscribeToken()).isNull();
        assertThat(m.ownerIs(c.ownerToken())).isTrue();
        assertThat(Json.MAPPER.valueToTree(m).toString()).doesNotContain(c.ownerToken());
    }

    @Test
    void aSharedMonitorGetsASubscribeToken() {
        MonitorDefinitions.Created c =
                MonitorDefinitions.create("s-1", PublicationsTest.body("{\"visibility\":\"shared\"}"), NOW, false);

        assertThat(c.subscribeToken()).isNotNull();
        assertThat(c.monitor().visibleTo(c.subscribeToken())).isTrue();
        assertThat(c.monitor().visibleTo(null)).isFalse();
    }

    @Test
    void unknownVocabularyIsNamedValueByValue() {
        assertThatThrownBy(() -> MonitorDefinitions.create(
                        "v-1",
                        PublicationsTest.body("{\"horizon\":\"decade\",\"capabilities\":[\"fly\"]}"),
                        NOW,
                        false))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
                    assertThat(e.toJson().get("invalid").toString()).contains("horizon:decade", "capabilities:fly");
                });
    }

    @Test
    void theDefaultGrantMustBeASubsetOfTheCapabilities() {
        assertThatThrownBy(() -> MonitorDefinitions.create(
                        "g-1",
                        PublicationsTest.body("{\"capabilities\":[\"observe\"],\"default_grant\":[\"act\"]}"),
                        NOW,
                        false))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY));
    }

    @Test
    void idsAndTypesHaveTheirShapes() {
        assertThatThrownBy(() -> MonitorDefinitions.requestedId(PublicationsTest.body("{\"id\":\"bad id!\"}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID));
        assertThat(MonitorDefinitions.requestedId(PublicationsTest.body("{}"))).matches("mon-[0-9a-f]{6}");
        assertThatThrownBy(() -> MonitorDefinitions.create(
                        "t-1", PublicationsTest.body("{\"types\":[\"NotReverseDns\"]}"), NOW, false))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY));
    }

    @Test
    void theStoredFormReadsBackAsItWasWritten() throws Exception {
        Monitor m = MonitorDefinitions.create(
                        "r-1", PublicationsTest.body("{\"ttl_seconds\":60,\"types\":[\"a.b\"]}"), NOW, true)
                .monitor();

        Monitor back = Json.MAPPER.readValue(Json.bytes(m), Monitor.class);

        assertThat(back).isEqualTo(m);
    }
}
