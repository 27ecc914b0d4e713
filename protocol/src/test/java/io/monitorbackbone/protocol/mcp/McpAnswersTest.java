package io.monitorbackbone.protocol.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ServerFault;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class McpAnswersTest {
    private static final JsonNode ID = Json.MAPPER.getNodeFactory().numberNode(4);

    @Test
    void aMonitorThatIsNotThereIsMcpsResourceNotFoundWithTheProtocolErrorAsData() {
        ObjectNode answer = McpAnswers.resourceError(ID, new CompletionException(ProtocolException.monitorNotFound()));
        assertThat(answer.toString())
                .isEqualTo(
                        "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32002,\"message\":"
                                + "\"monitor not found\",\"data\":{\"code\":\"NOT_FOUND\",\"error\":\"monitor not found\",\"done\":[]}}}");
    }

    @Test
    void onMcpMinus32002MeansResourceNotFoundAndNothingElse() {
        for (ErrorCode code : ErrorCode.values()) {
            int mcp = McpAnswers.resourceErrorCode(code);
            assertThat(mcp == McpAnswers.RESOURCE_NOT_FOUND).as(code.name()).isEqualTo(code == ErrorCode.NOT_FOUND);
            if (code != ErrorCode.NOT_FOUND && code != ErrorCode.TIER_NOT_ASSERTABLE) {
                assertThat(mcp).as(code + " keeps the code /rpc answers").isEqualTo(code.rpcCode());
            }
        }
        assertThat(McpAnswers.resourceErrorCode(ErrorCode.TIER_NOT_ASSERTABLE)).isEqualTo(McpAnswers.INVALID_PARAMS);
    }

    @Test
    void aServerFaultOnAResourceIsUnavailableAndAnUnexpectedFailureShowsNoText() {
        ObjectNode fault = McpAnswers.resourceError(ID, new ServerFault("Kafka is away", null));
        assertThat(fault.at("/error/code").asInt()).isEqualTo(ErrorCode.UNAVAILABLE.rpcCode());
        assertThat(fault.at("/error/data/error").asText()).isEqualTo("Kafka is away; nothing was acknowledged, retry");
        ObjectNode internal = McpAnswers.resourceError(ID, new IllegalStateException("token t-secret"));
        assertThat(internal.toString()).doesNotContain("t-secret").contains("internal error: IllegalStateException");
    }

    @Test
    void anotherServersErrorBodyIsAnsweredAsOursAndAnUnknownCodeIsInternal() {
        JsonNode notFound = Json.read("{\"code\":\"NOT_FOUND\",\"error\":\"no monitor m-2\",\"done\":[]}".getBytes());
        assertThat(McpAnswers.resourceError(ID, notFound).at("/error/code").asInt())
                .isEqualTo(McpAnswers.RESOURCE_NOT_FOUND);
        assertThat(McpAnswers.resourceError(ID, notFound).at("/error/message").asText())
                .isEqualTo("no monitor m-2");
        assertThat(McpAnswers.resourceError(ID, notFound).at("/error/data")).isEqualTo(notFound);
        JsonNode odd = Json.read("{\"code\":\"SOMETHING_ELSE\",\"done\":[]}".getBytes());
        assertThat(McpAnswers.resourceError(ID, odd).at("/error/code").asInt()).isEqualTo(McpAnswers.INTERNAL_ERROR);
        assertThat(McpAnswers.resourceError(ID, odd).at("/error/message").asText())
                .isEqualTo("SOMETHING_ELSE");
    }

    @Test
    void aRefusedToolCallIsAToolErrorWhoseContentIsTheProtocolErrorBody() {
        ObjectNode body = McpAnswers.toolError(new CompletionException(ProtocolException.ownerTokenRequired()));
        assertThat(body.toString())
                .isEqualTo("{\"code\":\"UNAUTHORIZED\",\"error\":\"owner bearer token required\",\"done\":[]}");
        ObjectNode result = McpAnswers.toolResult(true, body, true);
        assertThat(result.at("/isError").asBoolean()).isTrue();
        assertThat(result.at("/content/0/type").asText()).isEqualTo("text");
        assertThat(result.at("/content/0/text").asText()).isEqualTo(body.toString());
        assertThat(result.get("structuredContent")).isEqualTo(body);
        assertThat(McpAnswers.toolResult(true, body, false).has("structuredContent"))
                .isFalse();
        assertThat(McpAnswers.toolResult(false, Json.MAPPER.createArrayNode(), true)
                        .has("structuredContent"))
                .isFalse();
    }
}
