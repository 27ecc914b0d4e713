package io.monitorbackbone.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** One configured mapper for the whole server, and the few tree helpers every layer needs. */
public final class Json {
    /** Deep enough for any real document, shallow enough that a stored body can be nested in a protocol row and written. */
    public static final int MAX_NESTING = 200;
    public static final ObjectMapper MAPPER = new ObjectMapper(com.fasterxml.jackson.core.JsonFactory.builder()
            .streamReadConstraints(com.fasterxml.jackson.core.StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
            .build());

    private Json() {
    }

    public static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    public static ArrayNode array(Collection<String> values) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        values.forEach(a::add);
        return a;
    }

    /** Parses a request body: empty is {@code {}}; anything but a JSON object is refused as INVALID. */
    public static ObjectNode parseBody(byte[] body) {
        if (body == null || body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            return object();
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (IOException e) {
            throw ProtocolException.of(ErrorCode.INVALID, "body is not valid JSON");
        }
        if (node == null || node.isMissingNode()) {
            return object();
        }
        if (!node.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    public static JsonNode read(byte[] bytes) {
        try {
            return MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static <T> T convert(JsonNode node, Class<T> type) {
        try {
            return MAPPER.treeToValue(node, type);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String text(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** A list of strings, or null when absent; refuses anything that is not an array of strings. */
    public static List<String> strings(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isArray()) {
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be an array of strings").with("field", field);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : v) {
            if (!item.isTextual()) {
                throw ProtocolException.of(ErrorCode.INVALID, field + " must be an array of strings").with("field", field);
            }
            out.add(item.asText());
        }
        return out;
    }
}
