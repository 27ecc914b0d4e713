package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/**
 * A pull's query string: {@code limit}, {@code wait}, {@code cursor} (a read-only replay start), and any filter key
 * as an inline filter that is AND-ed with the stored ones, so it can only narrow.
 *
 * @param cursor null for a pull from the committed cursor
 */
public record PullRequest(int limit, long waitSeconds, Long cursor, ObjectNode inlineFilter) {

    public static PullRequest parse(Map<String, List<String>> query) {
        int limit = (int) Math.min(Limits.MAX_LIMIT, Math.max(1, number(query, "limit", Limits.DEFAULT_LIMIT)));
        long wait = Math.min(Limits.MAX_WAIT_SECONDS, Math.max(0, number(query, "wait", 0)));
        Long cursor = null;
        String c = first(query, "cursor");
        if (c != null) {
            if (!c.matches("[0-9]{1,18}")) {
                throw ProtocolException.badCursor(null);
            }
            cursor = Long.parseLong(c);
        }
        ObjectNode inline = Json.object();
        for (Map.Entry<String, List<String>> e : query.entrySet()) {
            String key = e.getKey();
            if (key.equals("limit") || key.equals("wait") || key.equals("cursor")) {
                continue;
            }
            if (Filter.LIST_KEYS.contains(key) || key.startsWith("#")) {
                ArrayNode values = inline.putArray(key);
                e.getValue().forEach(v -> List.of(v.split(",")).forEach(values::add));
            } else {
                inline.put(key, e.getValue().get(0));
            }
        }
        if (inline.has("limit")) {
            inline.remove("limit");
        }
        return new PullRequest(limit, wait, cursor, inline);
    }

    /**
     * One rule for the three numbers: each is an integer or the pull is refused naming it; a bound ({@code limit},
     * {@code wait}) is then clamped to the range discover announces, as the protocol specifies (REFERENCE-WIRE 6.2:
     * {@code limit=1000} serves 200, {@code limit=0} serves 1); a position ({@code cursor}) is never clamped, since a
     * replay from a guessed position would answer rows nobody asked for.
     */
    private static long number(Map<String, List<String>> query, String key, long fallback) {
        String v = first(query, key);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        if (!v.matches("-?[0-9]{1,18}")) {
            throw ProtocolException.of(ErrorCode.INVALID, key + " must be an integer").with(key, v);
        }
        return Long.parseLong(v);
    }

    private static String first(Map<String, List<String>> query, String key) {
        List<String> v = query.get(key);
        return v == null || v.isEmpty() ? null : v.get(0);
    }
}
