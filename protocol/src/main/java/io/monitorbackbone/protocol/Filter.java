package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The protocol's filter: keys AND, values OR, an array of filters OR. {@code types} takes a trailing {@code *} as a
 * prefix; {@code #tag} matches {@code data.tags[tag]}. Filters combine by AND, so a filter added on top of another can
 * only narrow what it passes.
 */
public final class Filter {
    public static final List<String> LIST_KEYS =
            List.of("types", "sources", "subjects", "actors", "tiers", "origins", "horizons");
    public static final List<String> KNOWN_KEYS = List.of(
            "actors",
            "horizons",
            "limit",
            "origins",
            "since",
            "sources",
            "subjects",
            "text",
            "tiers",
            "types",
            "until",
            "#<tag>");
    private static final Pattern TAG_KEY = Pattern.compile("^#[A-Za-z_][A-Za-z0-9_-]*$");
    private static final Pattern TYPE_PREFIX = Pattern.compile("^[a-z0-9]+(\\.[a-z0-9_-]+)*\\.?\\*$");

    public static final Filter ALL = new Filter(List.of());

    /** One filter object; {@code alternatives} of them are OR-ed. */
    private record Clause(
            Map<String, List<String>> lists,
            Map<String, List<String>> tags,
            Instant since,
            Instant until,
            String text) {
        boolean unconstrained() {
            return lists.isEmpty() && tags.isEmpty() && since == null && until == null && text == null;
        }
    }

    private final List<Clause> alternatives;
    private final List<Filter> alsoRequired;

    private Filter(List<Clause> alternatives) {
        this(alternatives, List.of());
    }

    private Filter(List<Clause> alternatives, List<Filter> alsoRequired) {
        this.alternatives = alternatives;
        this.alsoRequired = alsoRequired;
    }

    /**
     * The types a filter may name: protocol types, the rows the server writes beyond them (rule reactions, the bridge's
     * source rows), the monitor's declared types and the types its log has carried.
     */
    public static List<String> knownTypes(Collection<String> declared, Collection<String> seen) {
        TreeSet<String> all = new TreeSet<>(Vocabulary.PROTOCOL_TYPES);
        all.addAll(Rules.TYPES);
        all.add(Vocabulary.BRIDGE_SOURCE);
        all.addAll(declared);
        all.addAll(seen);
        return List.copyOf(all);
    }

    /**
     * Parses and checks a filter. {@code knownTypes} null skips the check that every concrete type is known (used
     * where no type list applies).
     */
    public static Filter parse(JsonNode node, List<String> knownTypes) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return ALL;
        }
        List<Clause> clauses = new ArrayList<>();
        if (node.isArray()) {
            for (JsonNode item : node) {
                clauses.add(clause(item, knownTypes));
            }
            return new Filter(clauses);
        }
        Clause c = clause(node, knownTypes);
        return c == null ? ALL : new Filter(List.of(c));
    }

    private static Clause clause(JsonNode node, List<String> knownTypes) {
        if (!node.isObject()) {
            throw invalid("a filter is an object or an array of objects", List.of(), knownTypes);
        }
        List<String> unknown = new ArrayList<>();
        node.fieldNames().forEachRemaining(k -> {
            if (!KNOWN_KEYS.contains(k) && !TAG_KEY.matcher(k).matches() || k.equals("#<tag>")) {
                unknown.add(k);
            }
        });
        if (!unknown.isEmpty()) {
            throw invalid("invalid filter: " + String.join(", ", unknown), unknown, knownTypes);
        }
        Map<String, List<String>> lists = new LinkedHashMap<>();
        Map<String, List<String>> tags = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (LIST_KEYS.contains(e.getKey())) {
                lists.put(e.getKey(), stringList(e.getKey(), e.getValue(), knownTypes));
            } else if (e.getKey().startsWith("#")) {
                tags.put(e.getKey().substring(1), stringList(e.getKey(), e.getValue(), knownTypes));
            }
        }
        checkVocabulary(lists, "tiers", Vocabulary.TIERS, knownTypes);
        checkVocabulary(lists, "origins", Vocabulary.ORIGINS, knownTypes);
        checkVocabulary(lists, "horizons", Vocabulary.HORIZONS, knownTypes);
        List<String> types = lists.get("types");
        if (types != null) {
            List<String> bad = types.stream()
                    .filter(t -> t.endsWith("*")
                            ? !TYPE_PREFIX.matcher(t).matches()
                            : knownTypes != null && !knownTypes.contains(t))
                    .toList();
            if (!bad.isEmpty()) {
                throw invalid(
                        "unknown types in filter: " + String.join(", ", bad),
                        bad.stream().map(t -> "types:" + t).toList(),
                        knownTypes);
            }
        }
        Instant since = instant(node, "since", knownTypes);
        Instant until = instant(node, "until", knownTypes);
        JsonNode limit = node.get("limit");
        if (limit != null && !(limit.isIntegralNumber() && limit.asLong() >= 1)) {
            throw invalid("filter limit must be a positive integer", List.of("limit"), knownTypes);
        }
        JsonNode text = node.get("text");
        if (text != null && !text.isTextual()) {
            throw invalid("filter text must be a string", List.of("text"), knownTypes);
        }
        return new Clause(lists, tags, since, until, text == null ? null : fold(text.asText()));
    }

    public boolean isAll() {
        return alternatives.isEmpty() && alsoRequired.isEmpty();
    }

    /**
     * Whether every observation passes, as {@code {}} and filters made only of it do (not only {@link #ALL}): a reader
     * can then skip building the served form that {@link #matches} reads.
     */
    public boolean passesEverything() {
        return (alternatives.isEmpty() || alternatives.stream().anyMatch(Clause::unconstrained))
                && alsoRequired.stream().allMatch(Filter::passesEverything);
    }

    /** Both filters must pass. */
    public Filter and(Filter other) {
        if (other.isAll()) {
            return this;
        }
        if (isAll()) {
            return other;
        }
        List<Filter> also = new ArrayList<>(alsoRequired);
        also.add(other);
        return new Filter(alternatives, List.copyOf(also));
    }

    /**
     * Where {@code inline} would widen this (stored) filter: the first list key or {@code #tag} key under which it names a
     * value this filter does not pass, with those values; null when every value it names narrows. A value is passed when
     * some alternative leaves the key open or lists it; for {@code types} a stored {@code x.*} also passes a concrete
     * {@code x.a} and a narrower {@code x.a.*}, so a concrete type under a stored wildcard narrows.
     */
    public Widening widening(Filter inline) {
        for (Clause c : inline.alternatives) {
            for (Map.Entry<String, List<String>> e : c.lists().entrySet()) {
                List<String> outside = e.getValue().stream()
                        .filter(v -> !passesValue(e.getKey(), v))
                        .toList();
                if (!outside.isEmpty()) {
                    return new Widening(e.getKey(), outside);
                }
            }
            for (Map.Entry<String, List<String>> e : c.tags().entrySet()) {
                List<String> outside = e.getValue().stream()
                        .filter(v -> !passesValue("#" + e.getKey(), v))
                        .toList();
                if (!outside.isEmpty()) {
                    return new Widening("#" + e.getKey(), outside);
                }
            }
        }
        for (Filter f : inline.alsoRequired) {
            Widening w = widening(f);
            if (w != null) {
                return w;
            }
        }
        return null;
    }

    /** An inline filter's key and the values under it that the stored filter does not pass. */
    public record Widening(String key, List<String> outside) {}

    private boolean passesValue(String key, String value) {
        for (Filter f : alsoRequired) {
            if (!f.passesValue(key, value)) {
                return false;
            }
        }
        if (alternatives.isEmpty()) {
            return true;
        }
        for (Clause c : alternatives) {
            List<String> stored = key.startsWith("#")
                    ? c.tags().get(key.substring(1))
                    : c.lists().get(key);
            if (stored == null || key.startsWith("#") && stored.isEmpty() || covers(key, stored, value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean covers(String key, List<String> stored, String value) {
        for (String s : stored) {
            if (s == null ? value == null : s.equals(value)) {
                return true;
            }
            if (key.equals("types") && s != null && s.endsWith("*") && value != null) {
                String prefix = s.substring(0, s.length() - 1);
                String narrower = value.endsWith("*") ? value.substring(0, value.length() - 1) : value;
                if (narrower.startsWith(prefix)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a served observation (a CloudEvent JSON object) passes. */
    public boolean matches(ObjectNode observation) {
        for (Filter f : alsoRequired) {
            if (!f.matches(observation)) {
                return false;
            }
        }
        if (alternatives.isEmpty()) {
            return true;
        }
        for (Clause c : alternatives) {
            if (matches(c, observation)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(Clause c, ObjectNode o) {
        for (Map.Entry<String, List<String>> e : c.lists().entrySet()) {
            String value = switch (e.getKey()) {
                case "types" -> Json.text(o, "type");
                case "sources" -> Json.text(o, "source");
                case "subjects" -> Json.text(o, "subject");
                case "actors" -> Json.text(o, "actor");
                case "tiers" -> Json.text(o, "tier");
                case "origins" -> Json.text(o, "origin");
                default -> Json.text(o, "horizon");
            };
            if (!anyMatches(e.getKey(), e.getValue(), value)) {
                return false;
            }
        }
        JsonNode tags = o.path("data").path("tags");
        for (Map.Entry<String, List<String>> e : c.tags().entrySet()) {
            JsonNode tag = tags.get(e.getKey());
            if (tag == null) {
                return false;
            }
            String value = tag.isNull() ? null : tag.asText();
            if (!e.getValue().isEmpty() && !e.getValue().contains(value)) {
                return false;
            }
        }
        if (c.since() != null || c.until() != null) {
            Instant time = Times.parseOrNull(Json.text(o, "time"));
            if (time == null
                    || c.since() != null && time.isBefore(c.since())
                    || c.until() != null && time.isAfter(c.until())) {
                return false;
            }
        }
        if (c.text() != null) {
            return contains(Json.text(o, "subject"), c.text()) || anyTextContains(o.path("data"), c.text());
        }
        return true;
    }

    /** Case-insensitive search of every key and scalar value of {@code data}, each on its own. */
    private static boolean anyTextContains(JsonNode node, String folded) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (contains(e.getKey(), folded) || anyTextContains(e.getValue(), folded)) {
                    return true;
                }
            }
            return false;
        }
        if (node.isArray()) {
            for (JsonNode item : node) {
                if (anyTextContains(item, folded)) {
                    return true;
                }
            }
            return false;
        }
        return node.isValueNode() && !node.isNull() && contains(node.asText(), folded);
    }

    private static boolean contains(String haystack, String folded) {
        return haystack != null && fold(haystack).contains(folded);
    }

    /**
     * Upper then lower case, and the final sigma as a plain one: lower-casing alone depends on where a letter stands
     * (a capital sigma at the end of a word becomes the final form), so the same text could fold two ways.
     */
    static String fold(String text) {
        return text.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT).replace('\u03c2', '\u03c3');
    }

    private static boolean anyMatches(String key, List<String> wanted, String value) {
        if (value == null) {
            return false;
        }
        for (String w : wanted) {
            if (key.equals("types") && w.endsWith("*")
                    ? value.startsWith(w.substring(0, w.length() - 1))
                    : w.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> stringList(String key, JsonNode value, List<String> knownTypes) {
        List<String> out = new ArrayList<>();
        if (value.isTextual()) {
            out.add(value.asText());
            return out;
        }
        if (!value.isArray()) {
            throw invalid("filter key " + key + " takes an array of strings", List.of(key), knownTypes);
        }
        for (JsonNode v : value) {
            if (v.isNull() && key.startsWith("#")) {
                out.add(null);
            } else if (v.isTextual()) {
                out.add(v.asText());
            } else {
                throw invalid("filter key " + key + " takes an array of strings", List.of(key), knownTypes);
            }
        }
        return out;
    }

    private static void checkVocabulary(
            Map<String, List<String>> lists, String key, List<String> vocabulary, List<String> knownTypes) {
        List<String> values = lists.get(key);
        if (values == null) {
            return;
        }
        List<String> bad = values.stream()
                .filter(v -> !vocabulary.contains(v))
                .map(v -> key + ":" + v)
                .toList();
        if (!bad.isEmpty()) {
            throw invalid("invalid filter values: " + String.join(", ", bad), bad, knownTypes);
        }
    }

    private static Instant instant(JsonNode node, String key, List<String> knownTypes) {
        JsonNode v = node.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        Instant t = v.isTextual() ? Times.parseOrNull(v.asText()) : null;
        if (t == null) {
            throw invalid("filter " + key + " must be an RFC 3339 date-time", List.of(key), knownTypes);
        }
        return t;
    }

    private static ProtocolException invalid(String message, List<String> invalid, List<String> knownTypes) {
        ProtocolException e = ProtocolException.of(ErrorCode.INVALID_FILTER, message)
                .with("invalid", invalid)
                .with("known_keys", KNOWN_KEYS);
        return e.with("known_types", knownTypes == null ? Vocabulary.PROTOCOL_TYPES : knownTypes);
    }
}
