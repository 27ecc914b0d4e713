package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server's answers as mp mcp passes them on: the same tool errors and resource errors as /mcp. */
class McpRemapTest {
    private static final JsonNode ID = Json.MAPPER.getNodeFactory().numberNode(2);
    private final List<String> log = new ArrayList<>();
    private final McpRemap remap = new McpRemap("http://fake", log::add);

    @Test
    void aResultIsTheToolResultAndErrorDataAToolErrorAsIs() {
        ObjectNode ok = remap.toolOutcome(reply(200, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}"), true);
        assertThat(ok.get("isError").asBoolean()).isFalse();
        assertThat(ok.at("/structuredContent/ok").asBoolean()).isTrue();

        String data = "{\"code\":\"UNKNOWN_VOCABULARY\",\"error\":\"invalid values\",\"done\":[],\"rejected_seq\":7}";
        ObjectNode refused = remap.toolOutcome(
                reply(
                        200,
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,"
                                + "\"message\":\"invalid values\",\"data\":" + data + "}}"),
                false);
        assertThat(refused.get("isError").asBoolean()).isTrue();
        assertThat(refused.at("/content/0/text").asText()).isEqualTo(data);
        assertThat(refused.has("structuredContent")).isFalse();
        assertThat(log).isEmpty();
    }

    @Test
    void aRefusalBeforeTheBindingIsPassedOnAndNoJsonRpcAnswerIsUnavailable() {
        ObjectNode origin =
                remap.toolOutcome(reply(403, "{\"code\":\"ORIGIN_REFUSED\",\"error\":\"no\",\"done\":[]}"), true);
        assertThat(origin.at("/structuredContent/code").asText()).isEqualTo("ORIGIN_REFUSED");

        ObjectNode garbage = remap.toolOutcome(new MonitorClient.Reply(502, "<html>", null), true);
        assertThat(garbage.get("isError").asBoolean()).isTrue();
        assertThat(garbage.at("/structuredContent/code").asText()).isEqualTo("UNAVAILABLE");
        assertThat(garbage.at("/structuredContent/error").asText())
                .isEqualTo("the server at http://fake gave no JSON-RPC answer (HTTP 502)");
        assertThat(log).containsExactly("the server at http://fake gave no JSON-RPC answer (HTTP 502)");
    }

    @Test
    void aToolCallMcpToolsRefusedCarriesTheProtocolErrorBody() {
        ObjectNode refused = McpRemap.toolRefused(ProtocolException.of(ErrorCode.INVALID, "monitor is required"), true);
        assertThat(refused.get("structuredContent").toString())
                .isEqualTo("{\"code\":\"INVALID\",\"error\":\"monitor is required\",\"done\":[]}");
    }

    @Test
    void aResourceThatIsNotThereIsMcpsResourceNotFoundWithTheBodyAsData() {
        String body = "{\"code\":\"NOT_FOUND\",\"error\":\"monitor not found\",\"done\":[]}";
        ObjectNode answer = remap.resource(ID, reply(404, body), json -> Json.object());
        assertThat(answer.at("/error/code").asInt()).isEqualTo(McpAnswers.RESOURCE_NOT_FOUND);
        assertThat(answer.at("/error/message").asText()).isEqualTo("monitor not found");
        assertThat(answer.at("/error/data").toString()).isEqualTo(body);

        ObjectNode bad = McpRemap.resourceRefused(ID, ProtocolException.of(ErrorCode.NOT_FOUND, "no such resource"));
        assertThat(bad.at("/error/code").asInt()).isEqualTo(McpAnswers.RESOURCE_NOT_FOUND);
    }

    @Test
    void aTierRefusalOnAResourceIsNotMistakenForResourceNotFound() {
        ObjectNode answer = remap.resource(
                ID,
                reply(400, "{\"code\":\"TIER_NOT_ASSERTABLE\",\"error\":\"x\",\"done\":[]}"),
                json -> Json.object());
        assertThat(answer.at("/error/code").asInt()).isEqualTo(McpAnswers.INVALID_PARAMS);
        ObjectNode unauthorized = remap.resource(
                ID, reply(401, "{\"code\":\"UNAUTHORIZED\",\"error\":\"x\",\"done\":[]}"), json -> Json.object());
        assertThat(unauthorized.at("/error/code").asInt()).isEqualTo(ErrorCode.UNAUTHORIZED.rpcCode());
    }

    @Test
    void aServerThatCannotAnswerIsUnavailableAndALogLine() {
        ObjectNode fault = remap.resource(
                ID,
                reply(503, "{\"code\":\"UNAVAILABLE\",\"error\":\"Kafka away\",\"done\":[]}"),
                json -> Json.object());
        assertThat(fault.at("/error/code").asInt()).isEqualTo(ErrorCode.UNAVAILABLE.rpcCode());
        assertThat(fault.at("/error/data/code").asText()).isEqualTo("UNAVAILABLE");
        ObjectNode gone = remap.resourceUnreachable(ID, "cannot connect to http://fake (connection refused)");
        assertThat(gone.at("/error/message").asText()).isEqualTo("cannot connect to http://fake (connection refused)");
        assertThat(log)
                .containsExactly(
                        "the server at http://fake could not answer (HTTP 503)",
                        "cannot connect to http://fake (connection refused)");
    }

    @Test
    void aReadIsTheResultOfItsBody() {
        ObjectNode answer = remap.resource(
                ID, reply(200, "{\"head\":3}"), json -> Json.object().set("seen", json));
        assertThat(answer.toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"seen\":{\"head\":3}}}");
    }

    private static MonitorClient.Reply reply(int status, String body) {
        return new MonitorClient.Reply(status, body, Json.read(body.getBytes(UTF_8)));
    }
}
