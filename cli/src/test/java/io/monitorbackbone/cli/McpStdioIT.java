package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.FreePorts;
import io.monitorbackbone.testsupport.Http;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code mp mcp} as an MCP host runs it: the packaged cli jar as its own process, spoken to over its stdin and stdout by
 * the official MCP Java SDK client (stdio transport), against the packaged gateway on the test broker. And the same
 * process driven line by line, to see that its stdout carries JSON-RPC messages and nothing else.
 */
class McpStdioIT {

    private final Http http = CliServer.http();
    private final List<McpSyncClient> clients = new ArrayList<>();
    private final List<String> stderr = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(McpSyncClient::closeGracefully);
    }

    @Test
    void itListsExactlyTheToolsTheGatewaysMcpLists() {
        McpSyncClient stdio = stdioClient(null);
        McpSyncClient gateway =
                client(HttpClientStreamableHttpTransport.builder(http.base().toString())
                        .endpoint("/mcp")
                        .build());

        Map<String, McpSchema.Tool> overStdio = byName(stdio.listTools().tools());
        Map<String, McpSchema.Tool> overHttp = byName(gateway.listTools().tools());

        assertThat(stdio.getServerInfo().name()).isEqualTo("monitor-backbone");
        assertThat(stdio.getServerCapabilities().tools()).isNotNull();
        assertThat(stdio.getServerCapabilities().resources().subscribe()).isFalse();
        assertThat(overStdio).hasSize(17);
        assertThat(overStdio.keySet()).containsExactlyInAnyOrderElementsOf(overHttp.keySet());
        overStdio.forEach((name, tool) -> {
            McpSchema.Tool theirs = overHttp.get(name);
            assertThat(tool.description()).as(name).isEqualTo(theirs.description());
            assertThat(tool.title()).as(name).isEqualTo(theirs.title());
            assertThat(Json.MAPPER
                            .valueToTree(tool.inputSchema())
                            .equals(Json.MAPPER.valueToTree(theirs.inputSchema())))
                    .as(name + " input schema")
                    .isTrue();
        });
        assertThat(stderr)
                .as("the log is on stderr")
                .anySatisfy(l -> assertThat(l).startsWith("mp mcp: serving MCP on stdio"));
    }

    @Test
    void aMonitorsLifeOverStdioAnswersWhatRestAnswers() {
        McpSyncClient client = stdioClient(null);
        String id = "stdio-" + Long.toHexString(System.nanoTime());

        JsonNode created =
                ok(client, "monitor_create", Map.of("id", id, "visibility", "public", "types", List.of("demo.note")));
        String owner = created.get("owner_token").asText();
        JsonNode published = ok(
                client,
                "monitor_publish",
                Map.of(
                        "monitor",
                        id,
                        "type",
                        "demo.note",
                        "subject",
                        "s-1",
                        "actor",
                        "probe:mcp",
                        "origin",
                        "probe",
                        "data",
                        Map.of("n", 1),
                        "token",
                        owner));
        JsonNode subscribed =
                ok(client, "monitor_subscribe", Map.of("monitor", id, "subscriber", "agent:stdio", "from", "earliest"));
        String subscription = subscribed.at("/subscription/id").asText();
        String token = subscribed.get("token").asText();
        JsonNode pulled = ok(
                client,
                "monitor_pull",
                Map.of("subscription", subscription, "token", token, "filter", Map.of("types", List.of("demo.note"))));
        JsonNode acked = ok(
                client,
                "monitor_ack",
                Map.of(
                        "subscription",
                        subscription,
                        "token",
                        token,
                        "cursor",
                        pulled.get("next").asLong()));
        JsonNode state = resourceJson(client, "monitor://" + id + "/state");
        Http.Response viaRest = http.get("/mp/v0/monitors/" + id + "/state", null);

        assertThat(created.at("/monitor/id").asText()).isEqualTo(id);
        assertThat(published.get("seq").asLong()).isEqualTo(2);
        assertThat(published.at("/observation/data/n").asInt()).isEqualTo(1);
        assertThat(pulled.get("observations"))
                .extracting(o -> o.get("subject").asText())
                .containsExactly("s-1");
        assertThat(acked.get("cursor").asLong()).isEqualTo(pulled.get("next").asLong());
        assertThat(acked.get("lag").asLong()).isZero();
        assertThat(state.get("monitor").asText()).isEqualTo(id);
        assertThat(state.get("head").asLong())
                .isEqualTo(viaRest.json().get("head").asLong())
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void aRefusalIsAToolErrorCarryingTheProtocolErrorBody() {
        McpSyncClient client = stdioClient(null);
        String id = "stdio-bad-" + Long.toHexString(System.nanoTime());
        String owner = ok(client, "monitor_create", Map.of("id", id, "visibility", "public"))
                .get("owner_token")
                .asText();

        McpSchema.CallToolResult badTier = call(
                client, "monitor_publish", Map.of("monitor", id, "type", "demo.note", "tier", "bogus", "token", owner));
        McpSchema.CallToolResult unknownArgument = call(client, "monitor_get", Map.of("monitr", id));
        McpSchema.CallToolResult wrongToken =
                call(client, "monitor_publish", Map.of("monitor", id, "type", "demo.note", "token", "not-the-owner"));

        JsonNode error = json(text(badTier));
        assertThat(badTier.isError()).isTrue();
        assertThat(error.get("code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(error.get("rejected_seq").asLong()).isPositive();
        assertThat((JsonNode) Json.MAPPER.valueToTree(badTier.structuredContent()))
                .isEqualTo(error);
        assertThat(code(unknownArgument)).isEqualTo("INVALID");
        assertThat(code(wrongToken)).isEqualTo("UNAUTHORIZED");
    }

    @Test
    void theTokenOptionServesToolsAndResourcesOfAPrivateMonitor() {
        McpSyncClient anonymous = stdioClient(null);
        String id = "stdio-private-" + Long.toHexString(System.nanoTime());
        String owner = ok(anonymous, "monitor_create", Map.of("id", id, "visibility", "private"))
                .get("owner_token")
                .asText();
        McpSyncClient withToken = stdioClient(owner);
        String definition = "monitor://" + id + "/definition";

        JsonNode state = ok(withToken, "monitor_state", Map.of("monitor", id));
        JsonNode read = resourceJson(withToken, definition);
        JsonNode readWithUriToken = resourceJson(anonymous, "monitor://" + id + "/state?token=" + owner);
        McpError refused = catchThrowableOfType(
                McpError.class, () -> anonymous.readResource(new McpSchema.ReadResourceRequest(definition)));

        assertThat(state.get("monitor").asText()).isEqualTo(id);
        assertThat(read.get("visibility").asText()).isEqualTo("private");
        assertThat(readWithUriToken.get("monitor").asText()).isEqualTo(id);
        assertThat(refused.getJsonRpcError().code()).isEqualTo(-32002);
        assertThat(Json.MAPPER
                        .valueToTree(refused.getJsonRpcError().data())
                        .get("code")
                        .asText())
                .isEqualTo("NOT_FOUND");
        assertThat(withToken.listResources().resources())
                .extracting(McpSchema.Resource::uri)
                .contains(definition);
        assertThat(anonymous.listResources().resources())
                .extracting(McpSchema.Resource::uri)
                .doesNotContain(definition);
    }

    @Test
    void stdoutCarriesJsonRpcMessagesAndNothingElse() {
        URI nowhere = URI.create("http://127.0.0.1:" + FreePorts.next());
        List<String> served = converse(http.base(), "2024-11-05");
        List<String> unreachable;
        CliProcess.Finished away;
        try (CliProcess p = CliProcess.startInteractive(Map.of(), "mcp", "--base", nowhere.toString())) {
            p.send(request(
                    1,
                    "initialize",
                    "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}"));
            p.send(request(2, "tools/call", "{\"name\":\"monitor_discover\",\"arguments\":{}}"));
            String answer = p.awaitLine("the answer to the call", l -> l.contains("\"id\":2"), Duration.ofSeconds(30));
            p.closeStdin();
            assertThat(p.awaitExit(Duration.ofSeconds(30))).isZero();
            away = p.finish();
            unreachable = away.stdout();
            JsonNode result = json(answer).get("result");
            assertThat(result.get("isError").asBoolean()).isTrue();
            assertThat(result.at("/structuredContent/code").asText()).isEqualTo("UNAVAILABLE");
        }

        for (String line : served) {
            assertThat(json(line).get("jsonrpc").asText()).as(line).isEqualTo("2.0");
        }
        for (String line : unreachable) {
            assertThat(json(line).get("jsonrpc").asText()).as(line).isEqualTo("2.0");
        }
        assertThat(unreachable).hasSize(2);
        assertThat(away.stderr()).contains("mp mcp: serving MCP on stdio").contains("cannot connect to " + nowhere);
    }

    // ---- helpers ----

    /**
     * Speaks MCP line by line to {@code mp mcp}: initialize, tools/list, a tool call, a line that is not JSON and a
     * resource that does not exist, then closes stdin and expects exit 0. Returns every line stdout carried.
     */
    private static List<String> converse(URI base, String protocolVersion) {
        try (CliProcess p = CliProcess.startInteractive(Map.of(), "mcp", "--base", base.toString())) {
            p.send(request(
                    1,
                    "initialize",
                    "{\"protocolVersion\":\"" + protocolVersion + "\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}"));
            JsonNode initialized =
                    json(p.awaitLine("the initialize answer", l -> l.contains("\"id\":1"), Duration.ofSeconds(30)));
            p.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            p.send(request(2, "tools/list", "{}"));
            p.send(request(3, "tools/call", "{\"name\":\"monitor_discover\",\"arguments\":{}}"));
            p.send("{this is not json");
            p.send(request(4, "resources/read", "{\"uri\":\"monitor://x/nothing\"}"));
            // The tool call is answered when the server has answered it, the others at once: the order may vary.
            List<JsonNode> answers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(json(p.nextLine(Duration.ofSeconds(30))));
            }
            JsonNode tools = answer(answers, "2");
            JsonNode discovered = answer(answers, "3");
            JsonNode notJson = answer(answers, "null");
            JsonNode noResource = answer(answers, "4");
            p.closeStdin();
            assertThat(p.awaitExit(Duration.ofSeconds(30)))
                    .as("exit once stdin ends")
                    .isZero();
            CliProcess.Finished done = p.finish();

            assertThat(initialized.at("/result/protocolVersion").asText()).isEqualTo(protocolVersion);
            assertThat(tools.at("/result/tools")).hasSize(17);
            assertThat(discovered.at("/result/isError").asBoolean()).isFalse();
            assertThat(discovered.at("/result/content/0/text").asText()).contains("\"version\"");
            assertThat(notJson.get("id").isNull()).isTrue();
            assertThat(noResource.at("/error/code").asInt()).isEqualTo(-32002);
            assertThat(done.stdout())
                    .as("one answer per request, nothing for the notification")
                    .hasSize(5);
            return done.stdout();
        }
    }

    private static JsonNode answer(List<JsonNode> answers, String id) {
        return answers.stream()
                .filter(a -> a.path("id").asText().equals(id)
                        || id.equals("null") && a.path("id").isNull())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no answer with id " + id + " in " + answers));
    }

    private static String request(int id, String method, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
    }

    /** {@code mp mcp --base <gateway>} launched by the SDK's stdio transport, as a host launches it. */
    private McpSyncClient stdioClient(String token) {
        List<String> command = CliProcess.javaCommand();
        List<String> args = new ArrayList<>(command.subList(1, command.size()));
        args.addAll(List.of("mcp", "--base", http.base().toString()));
        if (token != null) {
            args.addAll(List.of("--token", token));
        }
        Map<String, String> env = new HashMap<>();
        env.put("MP_TOKEN", "");
        env.put("MP_BASE", "");
        StdioClientTransport transport = new StdioClientTransport(
                ServerParameters.builder(command.get(0)).args(args).env(env).build(), McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(stderr::add);
        return client(transport);
    }

    private McpSyncClient client(McpClientTransport transport) {
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(Duration.ofSeconds(60))
                .initializationTimeout(Duration.ofSeconds(60))
                .clientInfo(new McpSchema.Implementation("monitor-backbone-cli-it", "1"))
                // The SDK's default validator needs json-schema-validator 2.x; the test classpath has 1.x
                // (test-support's
                // schema checks). It would only check structured content against output schemas, and no tool has one.
                .jsonSchemaValidator((schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null))
                .build();
        clients.add(client);
        client.initialize();
        return client;
    }

    private static Map<String, McpSchema.Tool> byName(List<McpSchema.Tool> tools) {
        Map<String, McpSchema.Tool> m = new LinkedHashMap<>();
        tools.forEach(t -> m.put(t.name(), t));
        return m;
    }

    private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
    }

    /** A successful call's REST body, checked to be the same as text and as structured content. */
    private static JsonNode ok(McpSyncClient client, String tool, Map<String, Object> arguments) {
        McpSchema.CallToolResult result = call(client, tool, arguments);
        assertThat(result.isError()).as(tool + ": " + text(result)).isFalse();
        JsonNode body = json(text(result));
        assertThat((JsonNode) Json.MAPPER.valueToTree(result.structuredContent()))
                .isEqualTo(body);
        return body;
    }

    private static String code(McpSchema.CallToolResult result) {
        assertThat(result.isError()).as(text(result)).isTrue();
        return json(text(result)).get("code").asText();
    }

    private static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    private static JsonNode resourceJson(McpSyncClient client, String uri) {
        McpSchema.ReadResourceResult read = client.readResource(new McpSchema.ReadResourceRequest(uri));
        McpSchema.TextResourceContents contents =
                (McpSchema.TextResourceContents) read.contents().get(0);
        assertThat(contents.uri()).isEqualTo(uri);
        assertThat(contents.mimeType()).isEqualTo("application/json");
        return json(contents.text());
    }

    private static JsonNode json(String text) {
        return Json.read(text.getBytes(UTF_8));
    }
}
