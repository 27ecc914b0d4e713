package io.monitorbackbone.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
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
import java.util.Map;

/**
 * One configured mapper for the whole server, the strict parser every request body goes through, and the few tree
 * helpers every layer needs.
 *
 * <p>Nesting is bounded twice, so that every record the server writes stays readable: a request body may nest at most
 * {@link #MAX_INPUT_NESTING} levels, and everything the server reads back ({@link #MAPPER}) accepts
 * {@link #MAX_READ_NESTING}, far more than the input limit plus the deepest wrapper the server puts around input
 * ({@link #WRAPPER_HEADROOM}: a rejected row's {@code data.payload.raw}, a lease row's {@code data.payload.evidence},
 * a served observation inside a pull page inside a JSON-RPC or MCP result).
 */
public final class Json {
    /** The deepest a request body may nest (its top-level object or array is level 1); deeper is refused INVALID. */
    public static final int MAX_INPUT_NESTING = 128;
    /** More levels than the deepest wrapper the server puts around a request body when it stores or serves it. */
    public static final int WRAPPER_HEADROOM = 32;
    /** The limit of every reader of what the server stored or served: larger than anything a writer can produce. */
    public static final int MAX_READ_NESTING = 1_000;

    static {
        if (MAX_READ_NESTING <= MAX_INPUT_NESTING + WRAPPER_HEADROOM) {
            throw new IllegalStateException("readers must accept deeper documents than any writer produces");
        }
    }

    public static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_READ_NESTING)
                    .build())
            .build());

    /**
     * Request bodies: at most {@link #MAX_INPUT_NESTING} levels, one document and nothing after it, no key twice in an
     * object.
     */
    private static final ObjectMapper INPUT = new ObjectMapper(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_INPUT_NESTING)
                            .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {}

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
        JsonNode node = parseInput(body);
        if (node == null) {
            return object();
        }
        if (!node.isObject()) {
            throw ProtocolException.of(ErrorCode.INVALID, "body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    /**
     * Parses request input strictly: null for an empty or blank body; refused as INVALID when it is not exactly one
     * JSON document, nests deeper than {@link #MAX_INPUT_NESTING}, repeats a key in an object, or holds what cannot be
     * stored as it was sent (a lone UTF-16 surrogate, a number too large for a double). What is acknowledged is what is
     * stored.
     */
    public static JsonNode parseInput(byte[] body) {
        if (body == null || body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            return null;
        }
        return strict(() -> INPUT.readTree(body));
    }

    /** {@link #parseInput(byte[])} for input that arrived as text already (an MCP call's arguments). */
    public static JsonNode parseInput(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        return strict(() -> INPUT.readTree(text));
    }

    private interface TreeRead {
        JsonNode read() throws IOException;
    }

    private static JsonNode strict(TreeRead read) {
        JsonNode node;
        try {
            node = read.read();
        } catch (StreamConstraintsException e) {
            throw ProtocolException.of(ErrorCode.INVALID, "body nests deeper than " + MAX_INPUT_NESTING + " levels")
                    .with("max_depth", MAX_INPUT_NESTING);
        } catch (IOException e) {
            throw ProtocolException.of(ErrorCode.INVALID, invalidReason(e));
        }
        if (node == null || node.isMissingNode()) {
            return null;
        }
        faithful(node, "");
        return node;
    }

    private static String invalidReason(IOException e) {
        String m = String.valueOf(e.getMessage());
        if (m.startsWith("Duplicate field")) {
            return "body repeats a key in one object";
        }
        if (m.startsWith("Trailing token")) {
            return "body holds more than one JSON document";
        }
        return "body is not valid JSON";
    }

    /** Refuses strings and keys with lone surrogates and numbers that only a non-finite double would hold. */
    private static void faithful(JsonNode node, String path) {
        if (node.isTextual()) {
            requireWellFormed(node.textValue(), path);
        } else if (node.isFloatingPointNumber() && !node.isBigDecimal() && !Double.isFinite(node.doubleValue())) {
            throw ProtocolException.of(ErrorCode.INVALID, "number at " + pathOrRoot(path) + " is too large to store")
                    .with("field", pathOrRoot(path));
        } else if (node.isObject()) {
            for (java.util.Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                requireWellFormed(e.getKey(), path + "/" + e.getKey());
                faithful(e.getValue(), path + "/" + e.getKey());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                faithful(node.get(i), path + "/" + i);
            }
        }
    }

    private static void requireWellFormed(String text, String path) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw ProtocolException.of(
                                ErrorCode.INVALID,
                                "text at " + pathOrRoot(path)
                                        + " holds a lone UTF-16 surrogate, which UTF-8 cannot store")
                        .with("field", pathOrRoot(path));
            }
        }
    }

    /** A JSON pointer to the offending value, cut so that a refusal never echoes a large key back. */
    private static String pathOrRoot(String path) {
        return path.isEmpty() ? "/" : path.length() > 200 ? path.substring(0, 200) + "..." : path;
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
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be an array of strings")
                    .with("field", field);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : v) {
            if (!item.isTextual()) {
                throw ProtocolException.of(ErrorCode.INVALID, field + " must be an array of strings")
                        .with("field", field);
            }
            out.add(item.asText());
        }
        return out;
    }
}
