package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.ProtocolException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A pull: {@code limit}, {@code wait}, {@code cursor} (a read-only replay start), and any other key as an inline
 * filter that is AND-ed with the stored ones, so it can only narrow. REST carries it as a query string
 * ({@link #fromQuery}), JSON-RPC and MCP as a call's params ({@link #fromParams}); both follow the same rules and
 * refuse with the same errors.
 *
 * @param cursor null for a pull from the committed cursor
 */
public record Pull(int limit, long waitSeconds, Long cursor, ObjectNode inlineFilter) {
    /** The keys of a call's params that address the call (the subscription, the bearer), not the pull. */
    public static final Set<String> ENVELOPE = Set.of("subscription", "id", "_meta", "bearer");

    /** A pull's query string; a key given twice keeps its first value, a list key all of them. */
    public static Pull fromQuery(Map<String, List<String>> query) {
        return parse(new Source() {
            @Override
            public Iterator<String> keys() {
                return query.keySet().iterator();
            }

            @Override
            public List<String> values(String key) {
                List<String> v = query.get(key);
                return v == null ? List.of() : v;
            }
        });
    }

    /**
     * A pull's call params: the same keys as the query string, the {@link #ENVELOPE} aside. A value is read as its
     * text ({@code "limit": 5} and {@code "limit": "5"} are the same pull), an array as one value per element.
     */
    public static Pull fromParams(ObjectNode params) {
        return parse(new Source() {
            @Override
            public Iterator<String> keys() {
                List<String> keys = new ArrayList<>();
                params.fieldNames().forEachRemaining(k -> {
                    if (!ENVELOPE.contains(k)) {
                        keys.add(k);
                    }
                });
                return keys.iterator();
            }

            @Override
            public List<String> values(String key) {
                JsonNode v = params.get(key);
                if (v == null || ENVELOPE.contains(key)) {
                    return List.of();
                }
                List<String> out = new ArrayList<>();
                if (v.isArray()) {
                    v.forEach(e -> out.add(e.asText()));
                } else {
                    out.add(v.asText());
                }
                return out;
            }
        });
    }

    /** Where a pull's keys come from: a query string or a call's params. */
    private interface Source {
        Iterator<String> keys();

        List<String> values(String key);

        default String first(String key) {
            List<String> v = values(key);
            return v.isEmpty() ? null : v.get(0);
        }
    }

    private static Pull parse(Source source) {
        int max = largePages(source.first(Limits.LARGE_PAGES)) ? Limits.LARGE_PAGE_MAX_LIMIT : Limits.MAX_LIMIT;
        int limit = (int) Math.min(max, Math.max(1, number(source, "limit", Limits.DEFAULT_LIMIT)));
        long wait = Math.min(Limits.MAX_WAIT_SECONDS, Math.max(0, number(source, "wait", 0)));
        Long cursor = null;
        String c = source.first("cursor");
        if (c != null) {
            if (!c.matches("[0-9]{1,18}")) {
                throw ProtocolException.of(ErrorCode.INVALID, "cursor must be a non-negative integer")
                        .with("cursor", null);
            }
            cursor = Long.parseLong(c);
        }
        ObjectNode inline = Json.object();
        for (Iterator<String> keys = source.keys(); keys.hasNext(); ) {
            String key = keys.next();
            if (key.equals("limit") || key.equals("wait") || key.equals("cursor") || key.equals(Limits.LARGE_PAGES)) {
                continue;
            }
            List<String> values = source.values(key);
            if (Filter.LIST_KEYS.contains(key) || key.startsWith("#")) {
                ArrayNode list = inline.putArray(key);
                values.forEach(v -> List.of(v.split(",")).forEach(list::add));
            } else {
                inline.put(key, values.isEmpty() ? "" : values.get(0));
            }
        }
        return new Pull(limit, wait, cursor, inline);
    }

    /**
     * Beyond the protocol ({@code io.monitorbackbone/large-pages} in discover): {@code large_pages=true} lets
     * {@code limit} reach {@link Limits#LARGE_PAGE_MAX_LIMIT} instead of {@code max_limit}, for a reader draining a
     * backlog; {@code false} or no key is the protocol's clamp. Any other value is refused naming the key.
     */
    private static boolean largePages(String v) {
        if (v == null || v.equals("false")) {
            return false;
        }
        if (v.equals("true")) {
            return true;
        }
        throw ProtocolException.of(ErrorCode.INVALID, Limits.LARGE_PAGES + " must be true or false")
                .with(Limits.LARGE_PAGES, v);
    }

    /**
     * One rule for the three numbers: each is an integer or the pull is refused naming it; a bound ({@code limit},
     * {@code wait}) is then clamped to the range discover announces, as the protocol specifies (REFERENCE-WIRE 6.2:
     * {@code limit=1000} serves 200, {@code limit=0} serves 1); a position ({@code cursor}) is never clamped, since a
     * replay from a guessed position would answer rows nobody asked for.
     */
    private static long number(Source source, String key, long fallback) {
        String v = source.first(key);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        if (!v.matches("-?[0-9]{1,18}")) {
            throw ProtocolException.of(ErrorCode.INVALID, key + " must be an integer")
                    .with(key, v);
        }
        return Long.parseLong(v);
    }
}
