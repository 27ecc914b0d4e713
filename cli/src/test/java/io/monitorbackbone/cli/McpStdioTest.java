package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import io.monitorbackbone.protocol.mcp.McpTools;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The stdio message loop against a fake server: what goes out on stdout for each line that comes in. */
class McpStdioTest {

    /** Records what the loop asked of the server and answers from a table. */
    static final class FakeRemote implements McpStdio.Remote {
        final List<JsonNode> rpcRequests = new CopyOnWriteArrayList<>();
        /** "method bearer" of every call. */
        final List<String> calls = new CopyOnWriteArrayList<>();

        final List<String> gets = new CopyOnWriteArrayList<>();
        final Map<String, MonitorClient.Reply> getReplies = new ConcurrentHashMap<>();
        Function<JsonNode, MonitorClient.Reply> rpc = request ->
                reply(200, "{\"jsonrpc\":\"2.0\",\"id\":" + request.get("id") + ",\"result\":{\"ok\":true}}");

        @Override
        public MonitorClient.Reply rpc(ObjectNode request, String bearer, Duration timeout) {
            rpcRequests.add(request);
            calls.add(request.get("method").asText() + " " + bearer);
            return rpc.apply(request);
        }

        @Override
        public MonitorClient.Reply get(String path, String bearer) {
            gets.add(path + " " + bearer);
            MonitorClient.Reply reply = getReplies.get(path);
            if (reply == null) {
                throw new MonitorClient.Unreachable("cannot connect to http://fake (connection refused)", null);
            }
            return reply;
        }

        @Override
        public String base() {
            return "http://fake";
        }
    }

    private final FakeRemote remote = new FakeRemote();
    private final StringWriter log = new StringWriter();

    @Test
    void initializeNegotiatesTheVersionAndDeclaresNoSubscriptions() {
        List<JsonNode> out = serve(
                null,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");

        assertThat(out).hasSize(3);
        assertThat(out.get(0).at("/result/protocolVersion").asText()).isEqualTo("2025-03-26");
        assertThat(out.get(0).at("/result/serverInfo/name").asText()).isEqualTo("monitor-backbone");
        assertThat(out.get(0).at("/result/capabilities/resources/subscribe").asBoolean(true))
                .isFalse();
        assertThat(out.get(0).at("/result/capabilities/tools").isObject()).isTrue();
        assertThat(out.get(1).at("/result/protocolVersion").asText()).isEqualTo(McpNegotiation.VERSIONS.get(0));
        assertThat(out.get(2).get("id").asText()).isEqualTo("p");
        assertThat(out.get(2).get("result").isEmpty()).isTrue();
    }

    @Test
    void toolsListIsTheSharedCatalogue() {
        JsonNode listed = serve(
                        null, initialize("2025-06-18"), "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")
                .get(1);

        List<String> names = new ArrayList<>();
        listed.at("/result/tools").forEach(t -> names.add(t.get("name").asText()));
        assertThat(names)
                .containsExactlyElementsOf(
                        McpTools.all().stream().map(McpTools.Tool::name).toList())
                .hasSize(17);
        for (JsonNode t : listed.at("/result/tools")) {
            McpTools.Tool tool = McpTools.named(t.get("name").asText());
            assertThat(t.get("description").asText()).isEqualTo(tool.description());
            assertThat(t.get("inputSchema")).isEqualTo(tool.inputSchema());
            assertThat(t.at("/annotations/readOnlyHint").asBoolean()).isEqualTo(tool.readOnly());
        }
    }

    @Test
    void aToolCallIsTheMappedJsonRpcCallWithTheArgumentTokenOrTheDefault() {
        List<JsonNode> out = serve(
                "default-token",
                initialize("2025-06-18"),
                call(2, "monitor_state", "{\"monitor\":\"m-1\"}"),
                call(
                        3,
                        "monitor_ack",
                        "{\"subscription\":\"s-1\",\"cursor\":4,\"token\":\"sub-token\",\"filter\":null}"));

        // the two calls run side by side: their order is not fixed
        assertThat(remote.calls).containsExactlyInAnyOrder("monitors/state default-token", "feeds/ack sub-token");
        assertThat(remote.rpcRequests)
                .extracting(r -> r.get("params"))
                .contains(
                        Json.read("{\"id\":\"m-1\"}".getBytes(UTF_8)),
                        Json.read("{\"subscription\":\"s-1\",\"cursor\":4}".getBytes(UTF_8)));
        JsonNode answered = byId(out, 2);
        assertThat(answered.at("/result/isError").asBoolean()).isFalse();
        assertThat(answered.at("/result/structuredContent/ok").asBoolean()).isTrue();
        assertThat(Json.read(answered.at("/result/content/0/text").asText().getBytes(UTF_8))
                        .get("ok")
                        .asBoolean())
                .isTrue();
    }

    @Test
    void aRefusalIsAToolErrorCarryingTheProtocolErrorBody() {
        remote.rpc = request -> reply(
                200,
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"invalid values: tier:bogus\","
                        + "\"data\":{\"code\":\"UNKNOWN_VOCABULARY\",\"error\":\"invalid values: tier:bogus\",\"done\":[],\"rejected_seq\":7}}}");

        List<JsonNode> out = serve(
                null,
                initialize("2025-06-18"),
                call(
                        2,
                        "monitor_publish",
                        "{\"monitor\":\"m\",\"type\":\"demo.x\",\"tier\":\"bogus\",\"token\":\"o\"}"),
                call(3, "monitor_get", "{\"monitr\":\"m\"}"),
                call(4, "monitor_publish", "{\"monitor\":\"m\",\"type\":\"demo.x\"}"),
                call(5, "no_such_tool", "{}"));

        assertThat(byId(out, 2).at("/result/isError").asBoolean()).isTrue();
        assertThat(byId(out, 2).at("/result/structuredContent/code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(byId(out, 2).at("/result/structuredContent/rejected_seq").asLong())
                .isEqualTo(7);
        assertThat(byId(out, 3).at("/result/structuredContent/code").asText()).isEqualTo("INVALID");
        assertThat(byId(out, 4).at("/result/structuredContent/code").asText())
                .as("no token and no default")
                .isEqualTo("INVALID");
        assertThat(byId(out, 5).at("/error/code").asInt()).isEqualTo(McpAnswers.INVALID_PARAMS);
        assertThat(remote.rpcRequests)
                .as("only the well-formed call reaches the server")
                .hasSize(1);
    }

    @Test
    void aServerThatDoesNotAnswerIsAnUnavailableToolErrorAndALogLine() {
        remote.rpc = request -> {
            throw new MonitorClient.Unreachable("cannot connect to http://fake (connection refused)", null);
        };

        JsonNode answered = serve(null, initialize("2025-06-18"), call(2, "monitor_discover", "{}"))
                .get(1);

        assertThat(answered.at("/result/isError").asBoolean()).isTrue();
        assertThat(answered.at("/result/structuredContent/code").asText()).isEqualTo("UNAVAILABLE");
        assertThat(log.toString()).contains("cannot connect to http://fake");
    }

    @Test
    void olderProtocolVersionsGetNoStructuredContentNorTitles() {
        List<JsonNode> out = serve(
                null,
                initialize("2024-11-05"),
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                call(3, "monitor_discover", "{}"));

        assertThat(byId(out, 2).at("/result/tools/0").has("title")).isFalse();
        assertThat(byId(out, 2).at("/result/tools/0").has("annotations")).isFalse();
        assertThat(byId(out, 3).get("result").has("structuredContent")).isFalse();
        assertThat(byId(out, 3).at("/result/content/0/type").asText()).isEqualTo("text");
    }

    @Test
    void resourcesAreReadOverRestWithTheUriTokenAndRefusalsAreJsonRpcErrors() {
        remote.getReplies.put("monitors/m-1/state", reply(200, "{\"monitor\":\"m-1\",\"head\":3}"));
        remote.getReplies.put(
                "monitors/m-2", reply(404, "{\"code\":\"NOT_FOUND\",\"error\":\"no monitor m-2\",\"done\":[]}"));
        remote.getReplies.put("monitors", reply(200, "{\"monitors\":[{\"id\":\"m-1\",\"name\":\"One\"}]}"));

        List<JsonNode> out = serve(
                "default",
                initialize("2025-06-18"),
                read(2, "monitor://m-1/state?token=t%2B1"),
                read(3, "monitor://m-2/definition"),
                read(4, "monitor://m-1/nothing"),
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/templates/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"monitor://m-1/state\"}}");

        assertThat(remote.gets).contains("monitors/m-1/state t+1", "monitors/m-2 default", "monitors default");
        assertThat(byId(out, 2).at("/result/contents/0/uri").asText()).isEqualTo("monitor://m-1/state?token=t%2B1");
        assertThat(byId(out, 2).at("/result/contents/0/mimeType").asText()).isEqualTo("application/json");
        assertThat(byId(out, 2).at("/result/contents/0/text").asText()).isEqualTo("{\"monitor\":\"m-1\",\"head\":3}");
        assertThat(byId(out, 3).at("/error/code").asInt()).isEqualTo(McpAnswers.RESOURCE_NOT_FOUND);
        assertThat(byId(out, 3).at("/error/data/code").asText()).isEqualTo("NOT_FOUND");
        assertThat(byId(out, 4).at("/error/code").asInt()).isEqualTo(McpAnswers.RESOURCE_NOT_FOUND);
        assertThat(byId(out, 5).at("/result/resources"))
                .extracting(r -> r.get("uri").asText())
                .containsExactly("monitor://m-1/definition", "monitor://m-1/state");
        assertThat(byId(out, 6).at("/result/resourceTemplates"))
                .extracting(r -> r.get("uriTemplate").asText())
                .containsExactly("monitor://{id}/definition", "monitor://{id}/state");
        assertThat(byId(out, 7).at("/error/code").asInt()).isEqualTo(McpAnswers.METHOD_NOT_FOUND);
    }

    @Test
    void badLinesGetJsonRpcErrorsAndNotificationsNoAnswer() {
        List<JsonNode> out = serve(
                null,
                "{not json",
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"sampling/whatever\"}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/something\"}",
                "",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");

        assertThat(out)
                .extracting(m -> m.at("/error/code").asInt())
                .containsExactly(McpAnswers.PARSE_ERROR, McpAnswers.INVALID_REQUEST, McpAnswers.METHOD_NOT_FOUND);
        assertThat(out.get(0).get("id").isNull()).isTrue();
    }

    @Test
    void aCancelledCallIsNotAnswered() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        remote.rpc = request -> {
            started.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MonitorClient.Unreachable("interrupted", e);
            }
            return reply(200, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
        };
        StringWriter out = new StringWriter();
        McpStdio server = new McpStdio(remote, null, out, new PrintWriter(log));

        server.receive(call(9, "monitor_discover", "{}"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        server.receive("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":9}}");
        release.countDown();
        server.run(new StringReader(""));

        assertThat(out.toString()).isEmpty();
    }

    // ---- helpers ----

    private List<JsonNode> serve(String defaultToken, String... lines) {
        StringWriter out = new StringWriter();
        try {
            new McpStdio(remote, defaultToken, out, new PrintWriter(log))
                    .run(new StringReader(String.join("\n", lines) + "\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<JsonNode> messages = new ArrayList<>();
        out.toString().lines().forEach(l -> messages.add(Json.read(l.getBytes(UTF_8))));
        return messages;
    }

    private static JsonNode byId(List<JsonNode> messages, int id) {
        return messages.stream()
                .filter(m -> m.path("id").asInt(-1) == id)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no answer to " + id + " in " + messages));
    }

    private static String initialize(String version) {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + version
                + "\"}}";
    }

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}";
    }

    private static String read(int id, String uri) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"resources/read\",\"params\":{\"uri\":\"" + uri
                + "\"}}";
    }

    private static MonitorClient.Reply reply(int status, String body) {
        return new MonitorClient.Reply(status, body, Json.read(body.getBytes(UTF_8)));
    }
}
