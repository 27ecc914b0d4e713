package io.monitorbackbone.protocol.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class McpToolsTest {

    @Test
    void everyToolMapsToAProtocolMethodAndTakesItsTokenAsAnArgument() {
        assertThat(McpTools.all()).hasSize(17);
        McpTools.all().stream()
                .filter(t -> !t.name().equals("monitor_discover"))
                .forEach(t -> assertThat(t.inputSchema()
                                .at("/properties/token/description")
                                .asText())
                        .as(t.name())
                        .isNotBlank());
    }

    @Test
    void aPullFlattensItsFilterCapsItsWaitAndMovesTheTokenToTheBearer() {
        McpTools.Call call = McpTools.named("monitor_pull")
                .call(
                        Json.read(
                                "{\"subscription\":\"sub-1\",\"token\":\"t\",\"wait\":50,\"filter\":{\"types\":[\"a.b\"],\"#env\":[\"prod\"]}}"
                                        .getBytes()),
                        null);

        assertThat(call.method()).isEqualTo("feeds/pull");
        assertThat(call.bearer()).isEqualTo("t");
        assertThat(call.params())
                .isEqualTo(Json.read(
                        "{\"subscription\":\"sub-1\",\"wait\":25,\"types\":[\"a.b\"],\"#env\":[\"prod\"]}".getBytes()));
    }

    @Test
    void createSendsItsTokenAsTheRegistrationTokenAndConfigureNamesItsAction() {
        McpTools.Call create = McpTools.named("monitor_create")
                .call(Json.read("{\"id\":\"m-1\",\"token\":\"reg\"}".getBytes()), "header");
        McpTools.Call pause = McpTools.named("monitor_configure")
                .call(Json.read("{\"monitor\":\"m-1\",\"action\":\"pause\",\"token\":\"own\"}".getBytes()), null);

        assertThat(create.method()).isEqualTo("monitors/create");
        assertThat(create.bearer()).isNull();
        assertThat(create.params().get("registration_token").asText()).isEqualTo("reg");
        assertThat(pause.method()).isEqualTo("monitors/pause");
        assertThat(pause.params().get("id").asText()).isEqualTo("m-1");
        assertThat(pause.bearer()).isEqualTo("own");
    }

    @Test
    void anUnknownOrMissingArgumentIsRefusedNamingWhatTheToolTakes() {
        ProtocolException unknown = catchThrowableOfType(
                ProtocolException.class,
                () -> McpTools.named("monitor_ack")
                        .call(
                                Json.read("{\"subscription\":\"s\",\"cursor\":1,\"token\":\"t\",\"cusror\":2}"
                                        .getBytes()),
                                null));
        ProtocolException missing = catchThrowableOfType(
                ProtocolException.class,
                () -> McpTools.named("monitor_ack").call(Json.read("{\"subscription\":\"s\"}".getBytes()), null));

        JsonNode body = unknown.toJson();
        assertThat(body.get("code").asText()).isEqualTo("INVALID");
        assertThat(body.get("unknown").toString()).contains("cusror");
        assertThat(missing.toJson().get("missing").toString()).contains("cursor", "token");
    }

    @Test
    void theSessionBearerStandsInWhenNoTokenArgumentIsGiven() {
        McpTools.Call call =
                McpTools.named("monitor_state").call(Json.read("{\"monitor\":\"m-1\"}".getBytes()), "from-header");

        assertThat(call.bearer()).isEqualTo("from-header");
    }
}
