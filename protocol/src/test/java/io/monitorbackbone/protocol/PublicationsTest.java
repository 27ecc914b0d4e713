package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PublicationsTest {
    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");

    static Monitor monitor(String owner) {
        ObjectNode body = (ObjectNode) Json.read(
                ("{\"owner\":\"" + owner + "\",\"horizon\":\"minute\",\"visibility\":\"public\"}").getBytes());
        return MonitorDefinitions.create("w-1", body, NOW, false).monitor();
    }

    static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes());
    }

    @Test
    void defaultsFollowTheOwnerWhenNothingIsDeclared() {
        Draft d = Publications.resolve(
                monitor("human:alice"),
                body("{\"type\":\"demo.note\",\"subject\":\"build-1\",\"data\":{\"ok\":true}}"),
                NOW);

        assertThat(d.actor()).isEqualTo("human:alice");
        assertThat(d.origin()).isEqualTo("human");
        assertThat(d.tier()).isEqualTo("measured");
        assertThat(d.verified()).isEqualTo("reported");
        assertThat(d.horizon()).isEqualTo("minute");
        assertThat(d.data().get("ok").asBoolean()).isTrue();
        assertThat(d.data().at("/tags/monitor").asText()).isEqualTo("w-1");
        assertThat(d.data().at("/provenance/source_ref").asText()).isEqualTo("build-1");
        assertThat(d.time()).isEqualTo("2026-11-29T18:00:00.000Z");
    }

    @Test
    void anAgentActorDefaultsToUnverified() {
        Draft d = Publications.resolve(
                monitor("human:alice"), body("{\"type\":\"demo.note\",\"actor\":\"agent:claude\"}"), NOW);

        assertThat(d.origin()).isEqualTo("agent");
        assertThat(d.tier()).isEqualTo("unverified");
        assertThat(d.verified()).isEqualTo("unverified");
    }

    @Test
    void aHumanNameOnAMachineOwnedMonitorIsDemotedToAgent() {
        Draft d = Publications.resolve(monitor("agent:owner"), body("{\"type\":\"x.y\",\"actor\":\"human:zed\"}"), NOW);

        assertThat(d.origin()).isEqualTo("agent");
        assertThat(d.verified()).isEqualTo("unverified");
    }

    @Test
    void aMachineCannotAssertSourceTruth() {
        assertThatThrownBy(() -> Publications.resolve(
                        monitor("human:alice"),
                        body("{\"type\":\"demo.note\",\"actor\":\"agent:x\",\"tier\":\"src\"}"),
                        NOW))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TIER_NOT_ASSERTABLE));
    }

    @Test
    void onBehalfOfMayNameOnlyTheOwner() {
        assertThatThrownBy(() -> Publications.resolve(
                        monitor("human:alice"),
                        body(
                                "{\"type\":\"demo.note\",\"actor\":\"agent:evil\",\"on_behalf_of\":\"human:bob\",\"origin\":\"human\"}"),
                        NOW))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROVENANCE_CEILING));

        Draft d = Publications.resolve(
                monitor("human:alice"),
                body(
                        "{\"type\":\"demo.note\",\"actor\":\"agent:worker\",\"on_behalf_of\":\"human:alice\",\"tier\":\"src\",\"origin\":\"human\",\"verification\":\"human_verified\"}"),
                NOW);
        assertThat(d.verified()).isEqualTo("human_verified");
        assertThat(d.data().at("/provenance/on_behalf_of").asText()).isEqualTo("human:alice");
    }

    @Test
    void theTopOfEachLadderNeedsAHumanOwner() {
        Monitor bot = monitor("agent:bot");
        for (String claim : new String[] {
            "\"origin\":\"human\"",
            "\"verification\":\"certified\",\"origin\":\"probe\"",
            "\"verification\":\"human_verified\",\"origin\":\"probe\""
        }) {
            assertThatThrownBy(() -> Publications.resolve(bot, body("{\"type\":\"x.y\"," + claim + "}"), NOW))
                    .as(claim)
                    .isInstanceOfSatisfying(
                            ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROVENANCE_CEILING));
        }
    }

    @Test
    void anAgentCannotCarryAHumanOriginWithoutNamingTheOwner() {
        assertThatThrownBy(() -> Publications.resolve(
                        monitor("human:alice"),
                        body("{\"type\":\"demo.note\",\"actor\":\"agent:evil\",\"origin\":\"human\"}"),
                        NOW))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROVENANCE_CEILING));
    }

    @Test
    void everyBadValueIsNamedWithTheVocabulary() {
        assertThatThrownBy(() -> Publications.resolve(
                        monitor("human:alice"), body("{\"type\":\"Bad Type\",\"tier\":\"nonsense\"}"), NOW))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
                    assertThat(e.toJson().get("invalid").toString()).contains("tier:nonsense", "type:Bad Type");
                    assertThat(e.toJson().at("/known/tier").toString()).contains("measured");
                });
    }

    @Test
    void shapesAreCheckedBeforeAnythingIsDecided() {
        Monitor m = monitor("human:alice");
        for (String bad : new String[] {
            "{\"data\":{}}",
            "{\"type\":\"a.b\",\"data\":[1]}",
            "{\"type\":\"a.b\",\"time\":\"yesterday\"}",
            "{\"type\":\"a.b\",\"supersedes\":\"42\"}",
            "{\"type\":\"a.b\",\"subject\":7}",
            "{\"type\":\"a.b\",\"subject\":\"" + "s".repeat(Vocabulary.MAX_SUBJECT_LENGTH + 1) + "\"}"
        }) {
            assertThatThrownBy(() -> Publications.resolve(m, body(bad), NOW))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID));
        }
    }

    @Test
    void aPublisherCannotForgeTheServersOwnRows() {
        Monitor m = monitor("human:alice");
        for (String type : new String[] {
            "ai.mentu.monitor.lease",
            "ai.mentu.monitor.configured",
            "ai.mentu.monitor.rejected",
            "io.monitorbackbone.rule.escalate",
            // A forged source row would put a stale_source gap on a bridged monitor, or take a real one away.
            Vocabulary.BRIDGE_SOURCE
        }) {
            assertThatThrownBy(() -> Publications.resolve(m, body("{\"type\":\"" + type + "\"}"), NOW))
                    .as(type)
                    .isInstanceOfSatisfying(
                            ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROVENANCE_CEILING));
        }
        assertThat(Publications.resolve(m, body("{\"type\":\"ai.mentu.monitor.contradiction\",\"subject\":\"x\"}"), NOW)
                        .type())
                .isEqualTo("ai.mentu.monitor.contradiction");
    }
}
