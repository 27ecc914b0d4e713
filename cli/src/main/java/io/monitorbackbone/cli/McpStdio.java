package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.Writer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.mcp.McpTools;
import io.monitorbackbone.protocol.mcp.MonitorUri;

/**
 * An MCP server on the stdio transport: one JSON-RPC 2.0 message per line on stdin and stdout, and nothing else on
 * stdout (logs go to stderr). Its tools are {@link McpTools}, the catalogue the gateway serves at {@code /mcp}; a tool
 * call becomes the protocol method call McpTools maps it to, sent to the server's JSON-RPC binding
 * ({@code POST /mp/v0/rpc}). Resources ({@code monitor://{id}/definition|state}) are read over REST. Every request to
 * the server stands alone, so a server restart or an idle night costs nothing. See docs/adr/0010-mcp-stdio.md.
 *
 * <p>Resource subscriptions are not offered ({@code subscribe: false}): the server has no per-monitor wake-up over
 * plain HTTP short of polling. An agent waits with {@code monitor_pull}'s {@code wait} instead.
 */
final class McpStdio {

    /** Newest first; an unknown requested version is answered with the newest. */
    static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");
    static final String SERVER_NAME = "monitor-backbone";
    static final String MIME_TYPE = MonitorUri.MIME_TYPE;
    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    static final int METHOD_NOT_FOUND = -32601;
    static final int INVALID_PARAMS = -32602;
    static final int INTERNAL_ERROR = -32603;
    /** MCP's code for a resource that does not exist (or may not be seen: the same answer, as at /mcp). */
    static final int RESOURCE_NOT_FOUND = -32002;

    private static final String SCHEME = MonitorUri.SCHEME;
    /** How long in-flight calls may still answer once stdin has ended. */
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final String INSTRUCTIONS = "A Monitor Protocol v0.1 server: durable, shareable monitors of "
            + "observations. Tools take their token as the argument `token` (owner_token from monitor_create, token from "
            + "monitor_subscribe). Delivery is monitor_pull then monitor_ack with the pull's `next`; a pull never moves "
            + "the cursor, and monitor_pull with `wait` waits for something new. Resources monitor://{id}/definition and "
            + "monitor://{id}/state (add ?token=<token> for a private or shared monitor).";

    /** The server, as this MCP server uses it; both calls throw {@link Api.Unreachable} when there is no answer. */
    interface Remote {
        /** One JSON-RPC call to {@code POST /mp/v0/rpc}. */
        Api.Reply rpc(ObjectNode request, String bearer, Duration timeout);

        /** A REST read, {@code path} relative to {@code /mp/v0/}. */
        Api.Reply get(String path, String bearer);

        String base();
    }

    static Remote over(Api api) {
        return new Remote() {
            @Override
            public Api.Reply rpc(ObjectNode request, String bearer, Duration timeout) {
                return api.post("rpc", request, bearer, timeout);
            }

            @Override
            public Api.Reply get(String path, String bearer) {
                return api.get(path, bearer);
            }

            @Override
            public String base() {
                return api.base();
            }
        };
    }

    private final Remote remote;
    private final String defaultToken;
    private final Writer out;
    private final PrintWriter log;
    private final ExecutorService work = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "mp-mcp-call");
        t.setDaemon(true);
        return t;
    });
    /** Requests being answered, by their id as JSON text; a cancelled one is removed and never answered. */
    private final Map<String, Future<?>> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong rpcIds = new AtomicLong();
    private volatile String version = VERSIONS.get(0);
    private volatile boolean outClosed;

    /**
     * {@code defaultToken} is the bearer of a tool call without a {@code token} argument and of resource requests
     * without {@code ?token=} (null: none). {@code out} gets the messages, {@code log} everything else.
     */
    McpStdio(Remote remote, String defaultToken, Writer out, PrintWriter log) {
        this.remote = remote;
        this.defaultToken = defaultToken == null || defaultToken.isBlank() ? null : defaultToken;
        this.out = out;
        this.log = log;
    }

    /** Serves until stdin ends (the host closed it) or stdout is gone; then gives in-flight calls a moment. */
    int run(Reader in) throws IOException {
        BufferedReader reader = new BufferedReader(in);
        for (String line = reader.readLine(); line != null && !outClosed; line = reader.readLine()) {
            if (!line.isBlank()) {
                receive(line);
            }
        }
        work.shutdown();
        try {
            if (!work.awaitTermination(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                work.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Exit.OK;
    }

    /** One line from the client. Quick methods are answered at once, calls to the server on a thread of their own. */
    void receive(String line) {
        JsonNode message;
        try {
            message = Json.MAPPER.readTree(line);
        } catch (IOException e) {
            send(error(null, PARSE_ERROR, "a line is not JSON", null));
            return;
        }
        if (message == null || !message.isObject()) {
            send(error(null, INVALID_REQUEST, "a message is one JSON-RPC object per line (batches are not supported)", null));
            return;
        }
        JsonNode id = message.get("id");
        if (!message.path("method").isTextual()) {
            if (!message.has("result") && !message.has("error")) {
                send(error(id, INVALID_REQUEST, "a request needs a method", null));
            }
            // else: a response to a request of ours; this server sends none
            return;
        }
        String method = message.get("method").asText();
        JsonNode params = message.path("params").isObject() ? message.get("params") : Json.object();
        if (id == null) {
            notification(method, params);
            return;
        }
        if (!id.isTextual() && !id.isIntegralNumber()) {
            send(error(null, INVALID_REQUEST, "a request id is a string or an integer", null));
            return;
        }
        switch (method) {
            case "initialize" -> send(result(id, initialize(params)));
            case "ping" -> send(result(id, Json.object()));
            case "tools/list" -> send(result(id, toolsList()));
            case "resources/templates/list" -> send(result(id, templatesList()));
            case "tools/call" -> async(id, () -> toolsCall(id, params));
            case "resources/list" -> async(id, () -> resourcesList(id));
            case "resources/read" -> async(id, () -> resourcesRead(id, params));
            case "resources/subscribe", "resources/unsubscribe" -> send(error(id, METHOD_NOT_FOUND, method + " is not "
                    + "offered over stdio (capabilities.resources.subscribe is false); wait with monitor_pull's `wait`",
                    null));
            default -> send(error(id, METHOD_NOT_FOUND, "unknown method " + method, null));
        }
    }

    private void notification(String method, JsonNode params) {
        if (method.equals("notifications/cancelled")) {
            JsonNode requestId = params.get("requestId");
            Future<?> call = requestId == null ? null : inFlight.remove(requestId.toString());
            if (call != null) {
                call.cancel(true);
            }
        }
        // notifications/initialized and anything else: nothing to do
    }

    private void async(JsonNode id, java.util.function.Supplier<ObjectNode> answer) {
        String key = id.toString();
        FutureTask<Void> task = new FutureTask<>(() -> {
            ObjectNode reply;
            try {
                reply = answer.get();
            } catch (RuntimeException e) {
                log("internal error: " + e);
                reply = error(id, INTERNAL_ERROR, "internal error: " + e.getClass().getSimpleName(), null);
            }
            if (inFlight.remove(key) != null) {
                send(reply);
            }
        }, null);
        if (inFlight.putIfAbsent(key, task) != null) {
            send(error(id, INVALID_REQUEST, "request id " + key + " is already in use", null));
            return;
        }
        work.execute(task);
    }

    // ---- lifecycle and lists ----

    private ObjectNode initialize(JsonNode params) {
        String requested = params.path("protocolVersion").asText("");
        version = VERSIONS.contains(requested) ? requested : VERSIONS.get(0);
        ObjectNode result = Json.object();
        result.put("protocolVersion", version);
        ObjectNode capabilities = result.putObject("capabilities");
        capabilities.putObject("tools").put("listChanged", false);
        capabilities.putObject("resources").put("subscribe", false).put("listChanged", false);
        ObjectNode info = result.putObject("serverInfo");
        info.put("name", SERVER_NAME);
        if (since("2025-06-18")) {
            info.put("title", "Monitor Protocol (monitor-backbone, stdio)");
        }
        info.put("version", "0.1");
        result.put("instructions", INSTRUCTIONS);
        return result;
    }

    private ObjectNode toolsList() {
        ObjectNode result = Json.object();
        ArrayNode tools = result.putArray("tools");
        for (McpTools.Tool tool : McpTools.all()) {
            ObjectNode t = tools.addObject();
            t.put("name", tool.name());
            if (since("2025-06-18")) {
                t.put("title", tool.title());
            }
            t.put("description", tool.description());
            t.set("inputSchema", tool.inputSchema().deepCopy());
            if (since("2025-03-26")) {
                t.putObject("annotations")
                        .put("title", tool.title())
                        .put("readOnlyHint", tool.readOnly())
                        .put("destructiveHint", tool.destructive())
                        .put("idempotentHint", tool.idempotent())
                        .put("openWorldHint", false);
            }
        }
        return result;
    }

    private ObjectNode templatesList() {
        ObjectNode result = Json.object();
        ArrayNode templates = result.putArray("resourceTemplates");
        templates.add(described(Json.object().put("uriTemplate", SCHEME + "{id}/definition").put("name", "monitor-definition"),
                "A monitor's definition", "The monitor's definition, as GET /mp/v0/monitors/{id} serves it. Public "
                        + "monitors are readable as they are; a private or shared monitor needs its token: append "
                        + "?token=<owner or subscribe token> to the URI (or start mp mcp with --token)."));
        templates.add(described(Json.object().put("uriTemplate", SCHEME + "{id}/state").put("name", "monitor-state"),
                "A monitor's state", "The monitor's computed state, as GET /mp/v0/monitors/{id}/state serves it. "
                        + "A private or shared monitor needs ?token=<owner or subscribe token> (or mp mcp --token)."));
        return result;
    }

    private ObjectNode described(ObjectNode node, String title, String description) {
        if (since("2025-06-18")) {
            node.put("title", title);
        }
        node.put("description", description);
        node.put("mimeType", MIME_TYPE);
        return node;
    }

    // ---- calls to the server ----

    private ObjectNode toolsCall(JsonNode id, JsonNode params) {
        String name = params.path("name").asText(null);
        McpTools.Tool tool = name == null ? null : McpTools.named(name);
        if (tool == null) {
            return error(id, INVALID_PARAMS, "unknown tool " + name, null);
        }
        McpTools.Call call;
        try {
            call = tool.call(withoutNulls(params.get("arguments")), defaultToken);
        } catch (ProtocolException e) {
            return result(id, toolResult(true, e.toJson()));
        }
        ObjectNode request = Json.object();
        request.put("jsonrpc", "2.0");
        request.put("id", rpcIds.incrementAndGet());
        request.put("method", call.method());
        request.set("params", call.params());
        // A pull may park for its wait (McpTools caps it) before it answers.
        Duration timeout = call.method().equals("feeds/pull")
                ? Api.DEFAULT_TIMEOUT.plusSeconds(McpTools.MAX_WAIT_SECONDS) : Api.DEFAULT_TIMEOUT;
        try {
            return result(id, toolOutcome(remote.rpc(request, call.bearer(), timeout)));
        } catch (Api.Unreachable e) {
            log(e.getMessage());
            return result(id, toolResult(true, unavailable(e.getMessage())));
        }
    }

    /** The JSON-RPC answer as a tool result: {@code result} as it is, {@code error.data} (the protocol error) as a tool error. */
    private ObjectNode toolOutcome(Api.Reply reply) {
        JsonNode json = reply.json();
        if (reply.ok() && json != null && json.has("result")) {
            return toolResult(false, json.get("result"));
        }
        JsonNode data = json == null ? null : json.path("error").path("data");
        if (reply.ok() && data != null && data.path("code").isTextual()) {
            return toolResult(true, data);
        }
        if (!reply.ok() && json != null && json.path("code").isTextual()) {
            // refused before the binding, e.g. ORIGIN_REFUSED or TOO_LARGE: already a protocol error body
            return toolResult(true, json);
        }
        String message = json != null && json.path("error").path("message").isTextual()
                ? json.path("error").path("message").asText()
                : "the server at " + remote.base() + " gave no JSON-RPC answer (HTTP " + reply.status() + ")";
        log(message);
        return toolResult(true, unavailable(message));
    }

    private ObjectNode toolResult(boolean isError, JsonNode body) {
        ObjectNode result = Json.object();
        result.putArray("content").addObject().put("type", "text").put("text", compact(body));
        if (since("2025-06-18") && body.isObject()) {
            result.set("structuredContent", body);
        }
        result.put("isError", isError);
        return result;
    }

    private ObjectNode resourcesList(JsonNode id) {
        return rest(id, "monitors", defaultToken, body -> {
            ObjectNode result = Json.object();
            ArrayNode resources = result.putArray("resources");
            for (JsonNode monitor : body.path("monitors")) {
                String monitorId = monitor.path("id").asText();
                String name = monitor.path("name").asText(monitorId);
                resources.add(resource(SCHEME + monitorId + "/definition", monitorId + " definition", name + ": definition",
                        "The monitor's definition: owner, types, visibility, capabilities, limits and head."));
                resources.add(resource(SCHEME + monitorId + "/state", monitorId + " state", name + ": state",
                        "The monitor's computed state: live, head, counters, ages, confidence and its missing inputs."));
            }
            return result;
        });
    }

    private ObjectNode resource(String uri, String name, String title, String description) {
        return described(Json.object().put("uri", uri).put("name", name), title, description);
    }

    private ObjectNode resourcesRead(JsonNode id, JsonNode params) {
        MonitorUri ref;
        try {
            ref = MonitorUri.parse(params.path("uri").asText(null));
        } catch (ProtocolException e) {
            return error(id, RESOURCE_NOT_FOUND, e.getMessage(), e.toJson());
        }
        String path = "monitors/" + Api.segment(ref.monitorId()) + (ref.state() ? "/state" : "");
        return rest(id, path, ref.bearer(defaultToken), body -> {
            ObjectNode result = Json.object();
            result.putArray("contents").addObject().put("uri", ref.uri()).put("mimeType", MIME_TYPE).put("text", compact(body));
            return result;
        });
    }

    /**
     * A REST read answered as a JSON-RPC result, or a refusal as a JSON-RPC error carrying the protocol error body as
     * {@code data} (NOT_FOUND as MCP's resource-not-found code), as /mcp answers it.
     */
    private ObjectNode rest(JsonNode id, String path, String bearer, Function<JsonNode, ObjectNode> success) {
        Api.Reply reply;
        try {
            reply = remote.get(path, bearer);
        } catch (Api.Unreachable e) {
            log(e.getMessage());
            return error(id, ErrorCode.UNAVAILABLE.rpcCode(), e.getMessage(), unavailable(e.getMessage()));
        }
        JsonNode json = reply.json();
        if (reply.ok() && json != null) {
            return result(id, success.apply(json));
        }
        if (reply.serverFault() || json == null || !json.path("code").isTextual()) {
            String message = "the server at " + remote.base() + " could not answer (HTTP " + reply.status() + ")";
            log(message);
            return error(id, ErrorCode.UNAVAILABLE.rpcCode(), message, unavailable(message));
        }
        String code = json.get("code").asText();
        int rpcCode = code.equals(ErrorCode.NOT_FOUND.name()) ? RESOURCE_NOT_FOUND : rpcCode(code);
        return error(id, rpcCode, json.path("error").asText(code), json);
    }

    private static int rpcCode(String code) {
        try {
            return ErrorCode.valueOf(code).rpcCode();
        } catch (IllegalArgumentException unknown) {
            return INTERNAL_ERROR;
        }
    }

    private static ObjectNode unavailable(String message) {
        return ProtocolException.of(ErrorCode.UNAVAILABLE, message).toJson();
    }

    /** Top-level null arguments count as absent, as at /mcp. */
    private static JsonNode withoutNulls(JsonNode arguments) {
        if (arguments == null || !arguments.isObject()) {
            return arguments;
        }
        ObjectNode copy = ((ObjectNode) arguments).deepCopy();
        List<String> nulls = new ArrayList<>();
        copy.fields().forEachRemaining(e -> {
            if (e.getValue().isNull()) {
                nulls.add(e.getKey());
            }
        });
        copy.remove(nulls);
        return copy;
    }

    // ---- messages ----

    private boolean since(String protocolVersion) {
        return version.compareTo(protocolVersion) >= 0;
    }

    private static ObjectNode result(JsonNode id, JsonNode result) {
        return io.monitorbackbone.protocol.JsonRpc.success(id, result);
    }

    private static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
        return io.monitorbackbone.protocol.JsonRpc.error(id, code, message, data);
    }

    private static String compact(JsonNode node) {
        return new String(Json.bytes(node), UTF_8);
    }

    /** One message, one line, flushed; stdout carries nothing else. */
    private synchronized void send(JsonNode message) {
        if (outClosed) {
            return;
        }
        try {
            out.write(compact(message));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            outClosed = true;
        }
        if (out instanceof PrintWriter writer && writer.checkError()) {
            outClosed = true;
        }
    }

    private void log(String line) {
        synchronized (log) {
            log.println("mp mcp: " + line);
            log.flush();
        }
    }
}
