package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.JsonRpc;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.mcp.McpAnswers;
import io.monitorbackbone.protocol.mcp.McpTools;
import io.monitorbackbone.protocol.mcp.MonitorUri;
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
import java.util.function.Supplier;

/**
 * An MCP server on the stdio transport: reads messages ({@link McpFraming}), answers each method, and keeps the calls
 * in flight. Its tools are {@link McpTools}, the catalogue the gateway serves at {@code /mcp}; a tool call becomes the
 * protocol method call McpTools maps it to, sent to the server's JSON-RPC binding ({@code POST /mp/v0/rpc}).
 * Resources ({@code monitor://{id}/definition|state}) are read over REST. The version is agreed by
 * {@link McpNegotiation}, the lists are {@link McpListings}', the server's answers become MCP's by {@link McpRemap}.
 * Every request to the server stands alone, so a server restart or an idle night costs nothing. See
 * docs/adr/0010-mcp-stdio.md.
 *
 * <p>Resource subscriptions are not offered ({@code subscribe: false}): the server has no per-monitor wake-up over
 * plain HTTP short of polling. An agent waits with {@code monitor_pull}'s {@code wait} instead.
 */
final class McpStdio {
    /** How long in-flight calls may still answer once stdin has ended. */
    private static final Duration GRACE = Duration.ofSeconds(2);

    /** The server, as this MCP server uses it; both calls throw {@link MonitorClient.Unreachable} when there is no answer. */
    interface Remote {
        /** One JSON-RPC call to {@code POST /mp/v0/rpc}. */
        MonitorClient.Reply rpc(ObjectNode request, String bearer, Duration timeout);

        /** A REST read, {@code path} relative to {@code /mp/v0/}. */
        MonitorClient.Reply get(String path, String bearer);

        String base();
    }

    static Remote over(MonitorClient client) {
        return new Remote() {
            @Override
            public MonitorClient.Reply rpc(ObjectNode request, String bearer, Duration timeout) {
                return client.post("rpc", request, bearer, timeout);
            }

            @Override
            public MonitorClient.Reply get(String path, String bearer) {
                return client.get(path, bearer);
            }

            @Override
            public String base() {
                return client.base();
            }
        };
    }

    private final Remote remote;
    private final String defaultToken;
    private final McpFraming channel;
    private final PrintWriter log;
    private final McpNegotiation negotiation = new McpNegotiation();
    private final McpListings listings = new McpListings(negotiation);
    private final McpRemap remap;
    private final ExecutorService work = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "mp-mcp-call");
        t.setDaemon(true);
        return t;
    });
    /** Requests being answered, by their id as JSON text; a cancelled one is removed and never answered. */
    private final Map<String, Future<?>> inFlight = new ConcurrentHashMap<>();

    private final AtomicLong rpcIds = new AtomicLong();

    /**
     * {@code defaultToken} is the bearer of a tool call without a {@code token} argument and of resource requests
     * without {@code ?token=} (null: none). {@code out} gets the messages, {@code log} everything else.
     */
    McpStdio(Remote remote, String defaultToken, Writer out, PrintWriter log) {
        this.remote = remote;
        this.defaultToken = defaultToken == null || defaultToken.isBlank() ? null : defaultToken;
        this.channel = new McpFraming(out);
        this.log = log;
        this.remap = new McpRemap(remote.base(), this::log);
    }

    /** Serves until stdin ends (the host closed it) or stdout is gone; then gives in-flight calls a moment. */
    int run(Reader in) throws IOException {
        BufferedReader reader = new BufferedReader(in);
        for (String line = reader.readLine(); line != null && !channel.closed(); line = reader.readLine()) {
            receive(line);
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
        McpFraming.Frame frame = McpFraming.read(line);
        if (frame instanceof McpFraming.Refused refused) {
            channel.send(refused.reply());
        } else if (frame instanceof McpFraming.Notification n) {
            notification(n.method(), n.params());
        } else if (frame instanceof McpFraming.Request r) {
            request(r.id(), r.method(), r.params());
        }
        // McpFraming.Ignored: nothing to do
    }

    private void request(JsonNode id, String method, JsonNode params) {
        switch (method) {
            case "initialize" -> channel.send(JsonRpc.success(id, negotiation.initialize(params)));
            case "ping" -> channel.send(JsonRpc.success(id, Json.object()));
            case "tools/list" -> channel.send(JsonRpc.success(id, listings.tools()));
            case "resources/templates/list" -> channel.send(JsonRpc.success(id, listings.templates()));
            case "tools/call" -> async(id, () -> toolsCall(id, params));
            case "resources/list" -> async(id, () -> rest(id, "monitors", defaultToken, listings::resources));
            case "resources/read" -> async(id, () -> resourcesRead(id, params));
            case "resources/subscribe", "resources/unsubscribe" ->
                channel.send(JsonRpc.error(
                        id,
                        McpAnswers.METHOD_NOT_FOUND,
                        method + " is not offered over stdio (capabilities.resources.subscribe "
                                + "is false); wait with monitor_pull's `wait`",
                        null));
            default -> channel.send(JsonRpc.error(id, McpAnswers.METHOD_NOT_FOUND, "unknown method " + method, null));
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

    private void async(JsonNode id, Supplier<ObjectNode> answer) {
        String key = id.toString();
        FutureTask<Void> task = new FutureTask<>(
                () -> {
                    ObjectNode reply;
                    try {
                        reply = answer.get();
                    } catch (RuntimeException e) {
                        log("internal error: " + e);
                        reply = JsonRpc.error(
                                id,
                                McpAnswers.INTERNAL_ERROR,
                                "internal error: " + e.getClass().getSimpleName(),
                                null);
                    }
                    if (inFlight.remove(key) != null) {
                        channel.send(reply);
                    }
                },
                null);
        if (inFlight.putIfAbsent(key, task) != null) {
            channel.send(
                    JsonRpc.error(id, McpAnswers.INVALID_REQUEST, "request id " + key + " is already in use", null));
            return;
        }
        work.execute(task);
    }

    private ObjectNode toolsCall(JsonNode id, JsonNode params) {
        String name = params.path("name").asText(null);
        McpTools.Tool tool = name == null ? null : McpTools.named(name);
        if (tool == null) {
            return JsonRpc.error(id, McpAnswers.INVALID_PARAMS, "unknown tool " + name, null);
        }
        McpTools.Call call;
        try {
            call = tool.call(withoutNulls(params.get("arguments")), defaultToken);
        } catch (ProtocolException e) {
            return JsonRpc.success(id, McpRemap.toolRefused(e, negotiation.structured()));
        }
        ObjectNode request = Json.object();
        request.put("jsonrpc", "2.0");
        request.put("id", rpcIds.incrementAndGet());
        request.put("method", call.method());
        request.set("params", call.params());
        // A pull may park for its wait (McpTools caps it) before it answers.
        Duration timeout = call.method().equals("feeds/pull")
                ? MonitorClient.DEFAULT_TIMEOUT.plusSeconds(McpTools.MAX_WAIT_SECONDS)
                : MonitorClient.DEFAULT_TIMEOUT;
        try {
            return JsonRpc.success(
                    id, remap.toolOutcome(remote.rpc(request, call.bearer(), timeout), negotiation.structured()));
        } catch (MonitorClient.Unreachable e) {
            return JsonRpc.success(id, remap.toolUnreachable(e.getMessage(), negotiation.structured()));
        }
    }

    private ObjectNode resourcesRead(JsonNode id, JsonNode params) {
        MonitorUri ref;
        try {
            ref = MonitorUri.parse(params.path("uri").asText(null));
        } catch (ProtocolException e) {
            return McpRemap.resourceRefused(id, e);
        }
        String path = "monitors/" + MonitorClient.segment(ref.monitorId()) + (ref.state() ? "/state" : "");
        return rest(id, path, ref.bearer(defaultToken), body -> McpListings.contents(ref, body));
    }

    /** A REST read answered as the resource request's JSON-RPC answer. */
    private ObjectNode rest(
            JsonNode id, String path, String bearer, java.util.function.Function<JsonNode, ObjectNode> success) {
        try {
            return remap.resource(id, remote.get(path, bearer), success);
        } catch (MonitorClient.Unreachable e) {
            return remap.resourceUnreachable(id, e.getMessage());
        }
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

    private void log(String line) {
        synchronized (log) {
            log.println("mp mcp: " + line);
            log.flush();
        }
    }
}
