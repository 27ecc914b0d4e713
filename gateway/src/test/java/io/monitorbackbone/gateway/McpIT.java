package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The MCP binding at /mcp, driven by the official MCP Java SDK client over Streamable HTTP against a real gateway
 * process on the test broker.
 */
class McpIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> TOOLS = List.of(
            "monitor_discover",
            "monitor_list",
            "monitor_get",
            "monitor_create",
            "monitor_configure",
            "monitor_publish",
            "monitor_state",
            "monitor_subscribe",
            "monitor_pull",
            "monitor_ack",
            "lease_claim",
            "lease_complete",
            "lease_release",
            "feed_seek",
            "feed_retire",
            "lease_renew",
            "lease_reject");

    private final Http http = SharedServer.http();
    private final List<McpSyncClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(McpSyncClient::closeGracefully);
    }

    @Test
    void initializeListsEveryToolWithADocumentedInputSchema() {
        McpSyncClient client = client(null, c -> {});

        McpSchema.ListToolsResult tools = client.listTools();

        assertThat(client.getServerInfo().name()).isEqualTo("monitor-backbone");
        assertThat(client.getServerCapabilities().resources().subscribe()).isTrue();
        assertThat(http.get("/mp/v0/discover", null)
                        .json()
                        .at("/capabilities/feeds/mcp")
                        .asBoolean())
                .as("discover announces the MCP feed")
                .isTrue();
        assertThat(tools.tools()).extracting(McpSchema.Tool::name).containsExactlyInAnyOrderElementsOf(TOOLS);
        for (McpSchema.Tool tool : tools.tools()) {
            assertThat(tool.description()).as(tool.name()).isNotBlank();
            Map<String, Object> schema = tool.inputSchema();
            assertThat(schema).as(tool.name()).containsEntry("type", "object").containsKey("properties");
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> properties = (Map<String, Map<String, Object>>) schema.get("properties");
            properties.forEach((name, p) -> assertThat(p.get("description"))
                    .as(tool.name() + "." + name)
                    .isNotNull());
            @SuppressWarnings("unchecked")
            List<String> required = (List<String>) schema.getOrDefault("required", List.of());
            assertThat(properties.keySet()).as(tool.name()).containsAll(required);
        }
    }

    @Test
    void aMonitorsLifeOverToolsAnswersWhatRestAnswers() {
        McpSyncClient client = client(null, c -> {});
        String id = SharedServer.uniqueId("mcp");

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
                ok(client, "monitor_subscribe", Map.of("monitor", id, "subscriber", "agent:mcp", "from", "earliest"));
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
        JsonNode viaTool = ok(client, "monitor_get", Map.of("monitor", id));
        Http.Response viaRest = http.get("/mp/v0/monitors/" + id, null);
        JsonNode state = resourceJson(client, "monitor://" + id + "/state");

        Schemas.assertValid("monitor", created.get("monitor"));
        assertThat(published.get("seq").asLong()).isEqualTo(2);
        Schemas.assertValid("observation", published.get("observation"));
        assertThat(pulled.get("observations"))
                .extracting(o -> o.get("subject").asText())
                .containsExactly("s-1");
        assertThat(acked.get("lag").asLong()).isZero();
        assertThat(viaTool).isEqualTo(viaRest.json());
        Schemas.assertValid("state", state);
        assertThat(state.get("monitor").asText()).isEqualTo(id);
        assertThat(state.get("head").asLong())
                .isEqualTo(viaRest.json().get("head").asLong());
    }

    @Test
    void aSubscribedStateWakesTheClientAfterAPublish() {
        List<McpSchema.ResourceContents> updates = new CopyOnWriteArrayList<>();
        McpSyncClient client = client(null, c -> c.resourcesUpdateConsumer(updates::addAll));
        Walk walk = new Walk(http);
        Walk.Monitor monitor = walk.createMonitor(SharedServer.uniqueId("mcp-wake"));
        String uri = "monitor://" + monitor.id() + "/state";
        client.subscribeResource(new McpSchema.SubscribeRequest(uri));

        long seq = walk.publish(monitor, "build-1");

        // The SDK reads the resource again on each notification and hands over what it read.
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(updates).anySatisfy(u -> {
                    assertThat(u.uri()).isEqualTo(uri);
                    assertThat(json(((McpSchema.TextResourceContents) u).text())
                                    .get("head")
                                    .asLong())
                            .isGreaterThanOrEqualTo(seq);
                }));
    }

    @Test
    void aPrivateMonitorsResourcesAreNeitherListedNorReadableWithoutItsToken() {
        McpSyncClient anonymous = client(null, c -> {});
        String id = SharedServer.uniqueId("mcp-private");
        String owner = ok(anonymous, "monitor_create", Map.of("id", id, "visibility", "private"))
                .get("owner_token")
                .asText();
        McpSyncClient withHeader = client(owner, c -> {});
        String state = "monitor://" + id + "/state";

        McpError refusedRead = catchThrowableOfType(
                McpError.class, () -> anonymous.readResource(new McpSchema.ReadResourceRequest(state)));
        McpError refusedSubscribe = catchThrowableOfType(
                McpError.class, () -> anonymous.subscribeResource(new McpSchema.SubscribeRequest(state)));
        JsonNode withUriToken = resourceJson(anonymous, state + "?token=" + owner);
        JsonNode withHeaderToken = resourceJson(withHeader, "monitor://" + id + "/definition");
        JsonNode toolWithHeaderToken = ok(withHeader, "monitor_state", Map.of("monitor", id));
        McpSchema.CallToolResult toolWithoutToken = call(anonymous, "monitor_state", Map.of("monitor", id));

        assertThat(refusedRead.getJsonRpcError().code()).isEqualTo(-32002);
        assertThat(JSON.<JsonNode>valueToTree(refusedRead.getJsonRpcError().data())
                        .get("code")
                        .asText())
                .isEqualTo("NOT_FOUND");
        assertThat(refusedSubscribe.getJsonRpcError().code()).isEqualTo(-32002);
        assertThat(withUriToken.get("monitor").asText()).isEqualTo(id);
        assertThat(withHeaderToken.get("visibility").asText()).isEqualTo("private");
        assertThat(toolWithHeaderToken.get("monitor").asText())
                .as("a tool without token uses the session's bearer")
                .isEqualTo(id);
        assertThat(code(toolWithoutToken)).isEqualTo("NOT_FOUND");
        assertThat(anonymous.listResources().resources())
                .extracting(McpSchema.Resource::uri)
                .doesNotContain(state);
        assertThat(withHeader.listResources().resources())
                .extracting(McpSchema.Resource::uri)
                .contains(state);
    }

    @Test
    void aRefusalIsAToolErrorCarryingTheProtocolErrorBody() {
        McpSyncClient client = client(null, c -> {});
        String id = SharedServer.uniqueId("mcp-bad");
        String owner = ok(client, "monitor_create", Map.of("id", id, "visibility", "public"))
                .get("owner_token")
                .asText();

        McpSchema.CallToolResult badTier = call(
                client, "monitor_publish", Map.of("monitor", id, "type", "demo.note", "tier", "bogus", "token", owner));
        McpSchema.CallToolResult unknownArgument = call(client, "monitor_get", Map.of("monitr", id));
        McpSchema.CallToolResult noToken = call(client, "monitor_publish", Map.of("monitor", id, "type", "demo.note"));
        Map<String, Object> withNull = new HashMap<>(Map.of("monitor", id, "type", "demo.note", "token", owner));
        withNull.put("subject", null);
        McpSchema.CallToolResult nullMeansAbsent = call(client, "monitor_publish", withNull);

        assertThat(badTier.isError()).isTrue();
        JsonNode error = json(((McpSchema.TextContent) badTier.content().get(0)).text());
        assertThat(error.get("code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(error.get("rejected_seq").asLong()).isPositive();
        Schemas.assertValid("error", error);
        assertThat((JsonNode) JSON.valueToTree(badTier.structuredContent())).isEqualTo(error);
        assertThat(code(unknownArgument)).isEqualTo("INVALID");
        assertThat(code(noToken)).isEqualTo("INVALID");
        assertThat(nullMeansAbsent.isError()).as(text(nullMeansAbsent)).isFalse();
    }

    @Test
    void leasesAndCursorMovesOverTools() {
        McpSyncClient client = client(null, c -> {});
        String id = SharedServer.uniqueId("mcp-lease");
        String owner = ok(
                        client,
                        "monitor_create",
                        Map.of("id", id, "visibility", "public", "capabilities", List.of("observe", "act")))
                .get("owner_token")
                .asText();
        ok(client, "monitor_publish", Map.of("monitor", id, "type", "demo.job", "subject", "job-1", "token", owner));
        JsonNode subscribed = ok(
                client,
                "monitor_subscribe",
                Map.of(
                        "monitor",
                        id,
                        "subscriber",
                        "agent:worker",
                        "capabilities",
                        List.of("observe", "act"),
                        "token",
                        owner));
        String subscription = subscribed.at("/subscription/id").asText();
        String token = subscribed.get("token").asText();
        Map<String, Object> lease = Map.of("subscription", subscription, "subject", "job-1", "token", token);

        JsonNode claimed = ok(client, "lease_claim", lease);
        JsonNode again = ok(client, "lease_claim", lease);
        JsonNode renewed = ok(client, "lease_renew", lease);
        JsonNode completed = ok(
                client,
                "lease_complete",
                Map.of("subscription", subscription, "subject", "job-1", "outcome", "done", "token", token));
        JsonNode sought = ok(
                client,
                "feed_seek",
                Map.of("subscription", subscription, "cursor", 1, "reason", "replay", "token", token));
        JsonNode soughtByTime = ok(
                client,
                "feed_seek",
                Map.of("subscription", subscription, "time", "2000-01-01T00:00:00Z", "reason", "all", "token", token));
        McpSchema.CallToolResult backwards =
                call(client, "monitor_ack", Map.of("subscription", subscription, "cursor", 0, "token", token));
        JsonNode retired = ok(client, "feed_retire", Map.of("subscription", subscription, "token", token));

        assertThat(claimed.toString()).contains("job-1");
        assertThat(again.get("idempotent").asBoolean()).isTrue();
        assertThat(renewed.toString()).contains("job-1");
        assertThat(completed.get("ok").asBoolean()).isTrue();
        assertThat(sought.toString()).contains(subscription);
        assertThat(soughtByTime.get("cursor").asLong())
                .as(soughtByTime.toString())
                .isEqualTo(1);
        assertThat(code(backwards)).isEqualTo("CURSOR_BACKWARDS");
        assertThat(retired.toString()).contains(subscription);
    }

    @Test
    void theOriginGuardAndProtocolErrorBodiesCoverMcp() {
        String initialize = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}";
        Map<String, String> mcp =
                Map.of("Content-Type", "application/json", "Accept", "application/json, text/event-stream");

        Http.Response foreign = http.request("POST", "/mcp", initialize, with(mcp, "Origin", "https://evil.example"));
        Http.Response unknownSession = http.request(
                "POST",
                "/mcp",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                with(mcp, "Mcp-Session-Id", "no-such-session"));
        Http.Response legacySse = http.request("GET", "/mcp/sse", null, Map.of());

        Walk.assertRefused(foreign, 403, "ORIGIN_REFUSED");
        Walk.assertRefused(unknownSession, 404, "NOT_FOUND");
        Walk.assertRefused(legacySse, 404, "NOT_FOUND");
    }

    // ---- helpers ----

    private McpSyncClient client(String bearer, Consumer<McpClient.SyncSpec> customize) {
        HttpClientStreamableHttpTransport.Builder transport = HttpClientStreamableHttpTransport.builder(
                        http.base().toString())
                .endpoint("/mcp");
        if (bearer != null) {
            transport.httpRequestCustomizer(
                    (request, method, uri, body, context) -> request.header("Authorization", "Bearer " + bearer));
        }
        McpClient.SyncSpec spec = McpClient.sync(transport.build())
                .requestTimeout(Duration.ofSeconds(30))
                .clientInfo(new McpSchema.Implementation("monitor-backbone-it", "1"))
                // The SDK's default validator needs json-schema-validator 2.x; the test classpath has 1.x
                // (test-support's
                // schema checks). It would only check structured content against output schemas, and no tool has one.
                .jsonSchemaValidator((schema, content) -> JsonSchemaValidator.ValidationResponse.asValid(null));
        customize.accept(spec);
        McpSyncClient client = spec.build();
        clients.add(client);
        client.initialize();
        return client;
    }

    private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
    }

    /** A successful call's REST body, checked to be the same as text and as structured content. */
    private static JsonNode ok(McpSyncClient client, String tool, Map<String, Object> arguments) {
        McpSchema.CallToolResult result = call(client, tool, arguments);
        assertThat(result.isError()).as(tool + ": " + text(result)).isFalse();
        JsonNode body = json(text(result));
        assertThat((JsonNode) JSON.valueToTree(result.structuredContent())).isEqualTo(body);
        return body;
    }

    private static String code(McpSchema.CallToolResult result) {
        assertThat(result.isError()).as(text(result)).isTrue();
        JsonNode body = json(text(result));
        Schemas.assertValid("error", body);
        return body.get("code").asText();
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
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> m = new HashMap<>(headers);
        m.put(name, value);
        return m;
    }
}
