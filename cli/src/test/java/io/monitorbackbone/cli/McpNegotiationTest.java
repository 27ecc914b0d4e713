package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Json;
import org.junit.jupiter.api.Test;

class McpNegotiationTest {

    @Test
    void aKnownVersionIsAgreedAnUnknownOneGetsTheNewest() {
        McpNegotiation n = new McpNegotiation();
        assertThat(n.initialize(Json.object().put("protocolVersion", "2025-03-26"))
                        .get("protocolVersion")
                        .asText())
                .isEqualTo("2025-03-26");
        assertThat(n.version()).isEqualTo("2025-03-26");
        assertThat(n.initialize(Json.object().put("protocolVersion", "1999-01-01"))
                        .get("protocolVersion")
                        .asText())
                .isEqualTo(McpNegotiation.VERSIONS.get(0));
        assertThat(n.initialize(Json.object()).get("protocolVersion").asText())
                .isEqualTo(McpNegotiation.VERSIONS.get(0));
    }

    @Test
    void whatDependsOnTheVersion() {
        McpNegotiation n = new McpNegotiation();
        assertThat(n.initialize(Json.object().put("protocolVersion", "2024-11-05"))
                        .at("/serverInfo")
                        .has("title"))
                .isFalse();
        assertThat(n.structured()).isFalse();
        assertThat(n.since("2025-03-26")).isFalse();
        assertThat(n.initialize(Json.object().put("protocolVersion", "2025-06-18"))
                        .at("/serverInfo/title")
                        .isTextual())
                .isTrue();
        assertThat(n.structured()).isTrue();
        assertThat(n.since("2025-03-26")).isTrue();
    }

    @Test
    void resourceSubscriptionsAreNotOffered() {
        var result = new McpNegotiation().initialize(Json.object());
        assertThat(result.at("/capabilities/resources/subscribe").asBoolean(true))
                .isFalse();
        assertThat(result.at("/capabilities/tools/listChanged").asBoolean(true)).isFalse();
        assertThat(result.at("/serverInfo/name").asText()).isEqualTo(McpNegotiation.SERVER_NAME);
        assertThat(result.get("instructions").asText()).contains("monitor_pull");
    }
}
