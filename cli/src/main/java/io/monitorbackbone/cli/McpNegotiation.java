package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.util.List;

/**
 * The MCP protocol version this session speaks, agreed at {@code initialize}, and what depends on it: titles from
 * 2025-06-18, tool annotations from 2025-03-26, {@code structuredContent} from 2025-06-18.
 */
final class McpNegotiation {
    /** Newest first; an unknown requested version is answered with the newest. */
    static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");

    static final String SERVER_NAME = "monitor-backbone";
    private static final String INSTRUCTIONS = "A Monitor Protocol v0.1 server: durable, shareable monitors of "
            + "observations. Tools take their token as the argument `token` (owner_token from monitor_create, token from "
            + "monitor_subscribe). Delivery is monitor_pull then monitor_ack with the pull's `next`; a pull never moves "
            + "the cursor, and monitor_pull with `wait` waits for something new. Resources monitor://{id}/definition and "
            + "monitor://{id}/state (add ?token=<token> for a private or shared monitor).";

    private volatile String version = VERSIONS.get(0);

    /** {@code initialize}: agrees on the requested version when it is one of {@link #VERSIONS}, else the newest. */
    ObjectNode initialize(JsonNode params) {
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

    String version() {
        return version;
    }

    /** Whether the agreed version is {@code protocolVersion} or newer (the versions are dates). */
    boolean since(String protocolVersion) {
        return version.compareTo(protocolVersion) >= 0;
    }

    /** Whether tool results carry {@code structuredContent}. */
    boolean structured() {
        return since("2025-06-18");
    }
}
