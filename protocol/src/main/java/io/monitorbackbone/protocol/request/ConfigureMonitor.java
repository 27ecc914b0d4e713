package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import java.util.List;

/**
 * {@code POST /mp/v0/monitors/{id}/{update|pause|resume|retire}}: the action and its body. Only {@code update} reads a
 * {@code patch} (its keys checked here, its values against the monitor when applied); the others ignore one.
 *
 * @param patch  the fields {@code update} changes ({@code {}} when absent); null for the other actions
 * @param rule   recorded on the {@code configured} row, as text
 * @param reason recorded on the {@code configured} row, as text
 */
public record ConfigureMonitor(String action, ObjectNode patch, String rule, String reason) {
    public static final String UPDATE = "update";
    public static final List<String> ACTIONS = List.of(UPDATE, "pause", "resume", "retire");

    public ConfigureMonitor {
        if (!ACTIONS.contains(action)) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "unknown monitor action " + action)
                    .with("action", action);
        }
    }

    public static ConfigureMonitor parse(String action, ObjectNode body) {
        ObjectNode patch = UPDATE.equals(action)
                ? MonitorDefinitions.checkPatch(body.get("patch")).deepCopy()
                : null;
        return new ConfigureMonitor(action, patch, Json.text(body, "rule"), Json.text(body, "reason"));
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        if (patch != null) {
            out.set("patch", patch.deepCopy());
        }
        Fields.putIfPresent(out, "rule", rule);
        Fields.putIfPresent(out, "reason", reason);
        return out;
    }
}
