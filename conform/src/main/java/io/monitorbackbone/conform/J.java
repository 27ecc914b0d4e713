package io.monitorbackbone.conform;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;

/** Request bodies written inline: {@code o("type", "x.y", "data", o("k", 1))}. */
final class J {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private J() {}

    static ObjectNode o(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values come in pairs");
        }
        ObjectNode o = F.objectNode();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            o.set((String) keysAndValues[i], node(keysAndValues[i + 1]));
        }
        return o;
    }

    static ArrayNode a(Object... items) {
        ArrayNode a = F.arrayNode();
        for (Object item : items) {
            a.add(node(item));
        }
        return a;
    }

    static JsonNode node(Object v) {
        if (v == null) {
            return F.nullNode();
        }
        if (v instanceof JsonNode n) {
            return n;
        }
        if (v instanceof String s) {
            return F.textNode(s);
        }
        if (v instanceof Integer i) {
            return F.numberNode(i);
        }
        if (v instanceof Long l) {
            return F.numberNode(l);
        }
        if (v instanceof Double d) {
            return F.numberNode(d);
        }
        if (v instanceof Boolean b) {
            return F.booleanNode(b);
        }
        if (v instanceof Collection<?> c) {
            return a(c.toArray());
        }
        throw new IllegalArgumentException("no JSON for " + v.getClass());
    }
}
