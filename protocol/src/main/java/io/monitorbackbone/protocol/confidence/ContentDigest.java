package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What a report says, reduced to 64 bits: the type and {@code data} without {@code provenance} and {@code tags}, in a
 * canonical form (object keys sorted). Two actors saying the same thing get the same digest whatever their provenance
 * or key order; who said it is exactly what corroboration must not compare.
 */
public final class ContentDigest {
    private static final String HEX = "0123456789ABCDEF";

    private ContentDigest() {}

    public static String of(String type, ObjectNode data) {
        StringBuilder canonical = new StringBuilder();
        canonical.append(type == null ? "" : type).append('\n');
        // What a copy of data without its provenance and tags would write, without the copy: the fold digests every
        // claim, and copying each data tree cost as much as writing it.
        writeObject(data, true, canonical);
        return HexFormat.of().formatHex(Subjects.sha256(canonical.toString().getBytes(StandardCharsets.UTF_8)), 0, 8);
    }

    private static void writeObject(JsonNode node, boolean claim, StringBuilder out) {
        List<String> keys = new ArrayList<>(node.size());
        node.fieldNames().forEachRemaining(k -> {
            if (!claim || !(k.equals("provenance") || k.equals("tags"))) {
                keys.add(k);
            }
        });
        keys.sort(null);
        out.append('{');
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            quote(keys.get(i), out);
            out.append(':');
            write(node.get(keys.get(i)), out);
        }
        out.append('}');
    }

    private static void write(JsonNode node, StringBuilder out) {
        if (node.isObject()) {
            writeObject(node, false, out);
        } else if (node.isArray()) {
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(node.get(i), out);
            }
            out.append(']');
        } else if (node.isTextual()) {
            quote(node.textValue(), out);
        } else if (node.isInt() || node.isLong()) {
            out.append(node.longValue());
        } else if (node.isBoolean()) {
            out.append(node.booleanValue());
        } else if (node.isNull()) {
            out.append("null");
        } else {
            // Other numbers keep Jackson's own rendering: 1 and 1.0 are different claims, as the publisher wrote them.
            out.append(node.toString());
        }
    }

    /**
     * A string as Jackson's {@code toString} of a {@link TextNode} writes it, which the digests were first computed
     * from: a double quote and a backslash escaped with a backslash, control characters as {@code \b \t \n \f \r} or
     * as a backslash, {@code u00} and two upper-case hex digits, everything else as it is. Jackson's writer, set up
     * again for each key and value, was most of the digest's samples in a profile of the bridge (2026-12-04), whose
     * records carry a long string. ContentDigestTest holds the two to the same text.
     */
    static void quote(String text, StringBuilder out) {
        out.append('"');
        // Runs that need no escape are copied whole; a character-at-a-time copy was slower than Jackson's writer on
        // long strings.
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(text, run, i);
            run = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> out.append("\\u00").append(HEX.charAt(c >> 4)).append(HEX.charAt(c & 0xf));
            }
        }
        out.append(text, run, text.length());
        out.append('"');
    }
}
