package io.monitorbackbone.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.gateway.service.MonitorService;
import io.monitorbackbone.gateway.service.Rpc;
import io.monitorbackbone.gateway.service.Work;
import io.monitorbackbone.protocol.Failures;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import io.monitorbackbone.protocol.mcp.McpTools;
import io.quarkiverse.mcp.server.McpException;
import io.quarkiverse.mcp.server.ResourceResponse;
import io.quarkiverse.mcp.server.ResourceTemplateManager;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkiverse.mcp.server.ToolManager;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The MCP binding at {@code /mcp} (Streamable HTTP, served by the quarkus-mcp-server extension): registers the tools
 * of {@link McpTools} and the two resource templates. A tool call becomes the protocol method call
 * {@link Rpc#dispatch} makes for JSON-RPC, so MCP adds no protocol logic of its own; its result is the REST body (as
 * text and as structured content), a refusal is a tool error whose content is the protocol error body.
 */
@ApplicationScoped
public class McpBinding {
    @Inject
    ToolManager tools;

    @Inject
    ResourceTemplateManager templates;

    @Inject
    Rpc rpc;

    @Inject
    MonitorService monitors;

    @Inject
    Work work;

    @Inject
    CurrentVertxRequest currentRequest;

    /** Before {@code Lifecycle} starts Kafka, so the tool list is complete from the first request on. */
    void register(@Observes @Priority(10) StartupEvent event) {
        for (McpTools.Tool tool : McpTools.all()) {
            tools.newTool(tool.name())
                    .setTitle(tool.title())
                    .setDescription(tool.description())
                    .setInputSchema(new JsonObject(new String(Json.bytes(tool.inputSchema()), StandardCharsets.UTF_8)))
                    .setAnnotations(new ToolManager.ToolAnnotations(
                            tool.title(), tool.readOnly(), tool.destructive(), tool.idempotent(), false))
                    .setAsyncHandler(args -> {
                        String header = headerBearer();
                        JsonObject message = args.rawMessage().asJsonObject();
                        return Uni.createFrom().completionStage(() -> call(tool, message, header));
                    })
                    .register();
        }
        template(
                "monitor-definition",
                "definition",
                "A monitor's definition",
                "The monitor's definition, as GET /mp/v0/monitors/{id} serves it. Public monitors are readable as "
                        + "they are; a private or shared monitor needs its token: append ?token=<owner or subscribe "
                        + "token> to the URI, or send it as the MCP session's Authorization: Bearer header.");
        template(
                "monitor-state",
                "state",
                "A monitor's state",
                "The monitor's computed state, as GET /mp/v0/monitors/{id}/state serves it. Subscribe to it "
                        + "(resources/subscribe) to get notifications/resources/updated when it changes, at most one "
                        + "per 250 ms: a wake-up only, delivery stays monitor_pull + monitor_ack. A private or shared "
                        + "monitor needs ?token=<owner or subscribe token> or the Authorization header.");
    }

    private CompletableFuture<ToolResponse> call(McpTools.Tool tool, JsonObject message, String headerBearer) {
        McpTools.Call call;
        try {
            call = tool.call(arguments(message), headerBearer);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(refusal(e));
        }
        return rpc.dispatch(call.method(), call.params(), call.bearer())
                .handle((reply, failure) -> failure == null ? response(false, reply.body()) : refusal(failure));
    }

    private static ToolResponse refusal(Throwable failure) {
        return response(true, McpAnswers.toolError(failure));
    }

    private static ToolResponse response(boolean isError, JsonNode body) {
        String text = new String(Json.bytes(body), StandardCharsets.UTF_8);
        return new ToolResponse(isError, List.of(new TextContent(text)), new JsonObject(text), null);
    }

    /**
     * The call's arguments as the client sent them, read from the raw message: the extension's own argument map
     * holds Vert.x values and refuses nulls.
     */
    private static JsonNode arguments(JsonObject message) {
        JsonObject params = message == null ? null : message.getJsonObject("params");
        Object arguments = params == null ? null : params.getValue("arguments");
        if (arguments == null) {
            return Json.object();
        }
        // The same strict reading as a REST body: the nesting limit, and nothing that cannot be stored as sent.
        JsonNode parsed = Json.parseInput(io.vertx.core.json.Json.encode(arguments));
        return parsed == null ? Json.object() : parsed;
    }

    private void template(String name, String view, String title, String description) {
        templates
                .newResourceTemplate(name)
                .setUriTemplate(io.monitorbackbone.protocol.mcp.MonitorUri.SCHEME + "{id}/" + view)
                .setTitle(title)
                .setDescription(description)
                .setMimeType(io.monitorbackbone.protocol.mcp.MonitorUri.MIME_TYPE)
                // McpRoute answers reads of monitor:// URIs before the extension does; this handler serves the
                // rare request that reaches the extension anyway (e.g. inside a JSON-RPC batch).
                .setAsyncHandler(args -> {
                    String header = headerBearer();
                    String uri = args.requestUri().value();
                    return Uni.createFrom()
                            .completionStage(() -> CompletableFuture.supplyAsync(
                                            () -> {
                                                io.monitorbackbone.protocol.mcp.MonitorUri ref =
                                                        io.monitorbackbone.protocol.mcp.MonitorUri.parse(uri);
                                                JsonNode body = MonitorResources.read(monitors, ref, header);
                                                return new ResourceResponse(List.of(new TextResourceContents(
                                                        uri,
                                                        new String(Json.bytes(body), StandardCharsets.UTF_8),
                                                        io.monitorbackbone.protocol.mcp.MonitorUri.MIME_TYPE)));
                                            },
                                            work)
                                    .exceptionally(failure -> {
                                        ProtocolException e = Failures.protocolError(failure);
                                        throw new McpException(e.getMessage(), McpAnswers.resourceErrorCode(e.code()));
                                    }));
                })
                .register();
    }

    /** The Authorization bearer of the MCP request being served, when the request context is reachable. */
    private String headerBearer() {
        try {
            RoutingContext ctx = currentRequest.getCurrent();
            return ctx == null ? null : McpRoute.bearer(ctx);
        } catch (RuntimeException notActive) {
            return null;
        }
    }
}
