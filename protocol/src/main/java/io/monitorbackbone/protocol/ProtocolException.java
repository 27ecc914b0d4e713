package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every refusal the protocol defines. Rendered as {@code {code, error, done, ...details}}; the HTTP status comes
 * from {@link ErrorCode#status()}, never from the message.
 */
public final class ProtocolException extends RuntimeException {
    private final ErrorCode code;
    private final Map<String, Object> details = new LinkedHashMap<>();

    public ProtocolException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public static ProtocolException of(ErrorCode code, String message) {
        return new ProtocolException(code, message);
    }

    public ProtocolException with(String key, Object value) {
        details.put(key, value);
        return this;
    }

    public ErrorCode code() {
        return code;
    }

    public int status() {
        return code.status();
    }

    public Map<String, Object> details() {
        return details;
    }

    public ObjectNode toJson() {
        ObjectNode body = Json.object();
        body.put("code", code.name());
        body.put("error", getMessage());
        body.set("done", Json.MAPPER.valueToTree(List.of()));
        details.forEach((k, v) -> body.set(k, Json.MAPPER.valueToTree(v)));
        return body;
    }
}
