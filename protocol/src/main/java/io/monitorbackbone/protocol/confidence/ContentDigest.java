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
            out.append(TextNode.valueOf(keys.get(i))).append(':');
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
        } else {
            // Numbers keep Jackson's own rendering: 1 and 1.0 are different claims, as the publisher wrote them.
            out.append(node.toString());
        }
    }
}
