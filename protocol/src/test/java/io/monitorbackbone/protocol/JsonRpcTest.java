package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonRpcTest {
    @Test
    void successAndErrorEnvelopesCarryTheIdOrNull() {
        assertThat(JsonRpc.success(
                                Json.MAPPER.getNodeFactory().numberNode(7),
                                Json.object().put("ok", true))
                        .toString())
                .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":true}}");
        assertThat(JsonRpc.error(null, -32601, "method not found", null).toString())
                .isEqualTo(
                        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"method not found\"}}");
        assertThat(JsonRpc.error(
                                Json.MAPPER.getNodeFactory().textNode("a"),
                                -32003,
                                "bad",
                                Json.object().put("code", "INVALID"))
                        .at("/error/data/code")
                        .asText())
                .isEqualTo("INVALID");
    }
}
