package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of {@link Filter} over a small alphabet of observations and filters, so that generated filters hit and
 * miss generated observations often. Observations are built the way the server builds them: a publish body resolved
 * by {@link Publications#resolve} against a monitor, then served as a CloudEvent by {@link Draft#served}.
 */
class FilterPropertiesTest {
    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    // --- the alphabet ---------------------------------------------------------------------------------------------

    static final List<String> MONITOR_IDS = List.of("w-1", "w-2", "ops");
    static final List<String> TYPES =
            List.of("demo.a", "demo.b", "demo.b.c", "demo.bc", "demox.y", "other.x", "other.demo.a");
    static final List<String> TYPE_PREFIXES =
            List.of("demo.*", "demo.b.*", "demo.b*", "demo*", "other.*", "other.demo.*", "ai.*", "demo.b.c.*");
    static final List<String> SOURCES = List.of("monitor:w-1", "monitor:w-2", "monitor:ops", "w-1", "monitor:");
    static final List<String> SUBJECTS = List.of("build-1", "build-10", "Build-1", "deploy/prod", "x");
    static final List<String> ACTORS = List.of(
            "human:alice", "human:bob", "agent:claude", "probe:ci", "system:cron", "webhook:gh", "hook:gh", "bot");
    static final List<String> STATUSES = List.of("ok", "Failed", "flaky build", "TIMEOUT", "retry-2");
    static final List<String> TAG_NAMES = List.of("branch", "env", "monitor", "origin", "missing");
    static final List<String> TAG_VALUES =
            Arrays.asList("main", "dev", "Main", "prod", "staging", "w-1", "human", "agent", null);
    /** Stands for a tag published as JSON {@code null}, as opposed to a tag left out (Java null). */
    static final String JSON_NULL = "(json null)";

    static final List<String> EXACT_KEYS = List.of("sources", "subjects", "actors", "tiers", "origins", "horizons");
    static final List<String> LIST_KEYS = List.of(
            "types",
            "sources",
            "subjects",
            "actors",
            "tiers",
            "origins",
            "horizons",
            "#branch",
            "#env",
            "#monitor",
            "#origin",
            "#missing");
    static final List<String> FILTER_KEYS = List.of(
            "types",
            "sources",
            "subjects",
            "actors",
            "tiers",
            "origins",
            "horizons",
            "#branch",
            "#env",
            "#monitor",
            "#origin",
            "#missing",
            "since",
            "until",
            "text",
            "limit");

    /** Characters a text needle is made of: none of them is JSON syntax, so a needle cannot span two JSON tokens. */
    static final String NEEDLE_CHARS = "abdefiklmnoprstuxBFIOT-1/ .";

    // --- observations ---------------------------------------------------------------------------------------------

    /** Who publishes where: the monitor (its id and horizon) and the actor with the tier it claims. */
    record Who(String monitor, String horizon, String actor, String tier) {}

    /** One publish request; {@code branch}/{@code env} null means the tag is left out. */
    record Obs(Who who, String type, String subject, String time, String branch, String env, String status) {
        ObjectNode body() {
            ObjectNode body = NODES.objectNode();
            body.put("type", type);
            if (subject != null) {
                body.put("subject", subject);
            }
            body.put("actor", who.actor());
            // a machine may not claim "src"; keep the request publishable rather than discarding it
            boolean human = Provenance.inferOrigin(who.actor()).equals("human");
            body.put("tier", who.tier().equals("src") && !human ? "derived" : who.tier());
            body.put("time", time);
            body.putObject("data").put("status", status);
            ObjectNode tags = body.putObject("tags");
            tag(tags, "branch", branch);
            tag(tags, "env", env);
            return body;
        }

        ObjectNode served() {
            return Publications.resolve(monitor(who.monitor(), who.horizon()), body(), NOW)
                    .served(who.monitor(), 7, false);
        }

        private static void tag(ObjectNode tags, String name, String value) {
            if (JSON_NULL.equals(value)) {
                tags.putNull(name);
            } else if (value != null) {
                tags.put(name, value);
            }
        }
    }

    private static final Map<String, Monitor> MONITORS = new ConcurrentHashMap<>();

    static Monitor monitor(String id, String horizon) {
        return MONITORS.computeIfAbsent(id + "/" + horizon, k -> {
            ObjectNode body = NODES.objectNode();
            body.put("owner", "human:alice");
            body.put("horizon", horizon);
            body.put("visibility", "public");
            return MonitorDefinitions.create(id, body, NOW, false).monitor();
        });
    }

    static Arbitrary<ZoneOffset> offsets() {
        return Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(ZoneOffset.UTC)),
                Tuple.of(
                        3,
                        Arbitraries.of(
                                ZoneOffset.ofHours(1),
                                ZoneOffset.ofHours(-5),
                                ZoneOffset.ofHoursMinutes(5, 30),
                                ZoneOffset.ofHoursMinutes(-9, -30),
                                ZoneOffset.ofHours(14),
                                ZoneOffset.ofHours(-12))),
                Tuple.of(
                        3,
                        Arbitraries.integers().between(-18 * 60, 18 * 60).map(m -> ZoneOffset.ofTotalSeconds(m * 60))));
    }

    static Arbitrary<Instant> instants() {
        Arbitrary<Long> seconds = Arbitraries.longs()
                .between(
                        Instant.parse("2000-01-01T00:00:00Z").getEpochSecond(),
                        Instant.parse("2100-01-01T00:00:00Z").getEpochSecond());
        Arbitrary<Integer> nanos = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0)),
                Tuple.of(2, Arbitraries.integers().between(0, 999).map(ms -> ms * 1_000_000)),
                Tuple.of(1, Arbitraries.integers().between(0, 999_999_999)));
        return Combinators.combine(seconds, nanos).as(Instant::ofEpochSecond);
    }

    static String format(Instant instant, ZoneOffset offset) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(OffsetDateTime.ofInstant(instant, offset));
    }

    static Arbitrary<String> times() {
        return Combinators.combine(instants(), offsets()).as(FilterPropertiesTest::format);
    }

    static Arbitrary<String> tagValues() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of("main", "dev", "Main")),
                Tuple.of(1, Arbitraries.just(JSON_NULL)),
                Tuple.of(2, Arbitraries.just((String) null)));
    }

    @Provide
    Arbitrary<Obs> observations() {
        Arbitrary<Who> who = Combinators.combine(
                        Arbitraries.of(MONITOR_IDS),
                        Arbitraries.of(Vocabulary.HORIZONS),
                        Arbitraries.of(ACTORS),
                        Arbitraries.of(Vocabulary.TIERS))
                .as(Who::new);
        Arbitrary<String> statuses = Arbitraries.oneOf(
                Arbitraries.of(STATUSES),
                Arbitraries.strings().withChars(NEEDLE_CHARS).ofMaxLength(10));
        return Combinators.combine(
                        who,
                        Arbitraries.of(TYPES),
                        Arbitraries.of(SUBJECTS).injectNull(0.15),
                        times(),
                        tagValues(),
                        Arbitraries.of("prod", "staging").injectNull(0.3),
                        statuses)
                .as(Obs::new);
    }

    // --- filters --------------------------------------------------------------------------------------------------

    static Arbitrary<JsonNode> stringList(Arbitrary<String> values) {
        return Arbitraries.frequencyOf(
                Tuple.of(1, values.filter(Objects::nonNull).map(v -> (JsonNode) TextNode.valueOf(v))),
                Tuple.of(5, values.list().ofMinSize(0).ofMaxSize(3).map(FilterPropertiesTest::array)));
    }

    static ArrayNode array(List<String> values) {
        ArrayNode a = NODES.arrayNode();
        values.forEach(v -> {
            if (v == null) {
                a.addNull();
            } else {
                a.add(v);
            }
        });
        return a;
    }

    static Arbitrary<String> valuesFor(String key) {
        return switch (key) {
            case "types" -> Arbitraries.oneOf(Arbitraries.of(TYPES), Arbitraries.of(TYPE_PREFIXES));
            case "sources" -> Arbitraries.of(SOURCES);
            case "subjects" -> Arbitraries.of(SUBJECTS);
            case "actors" -> Arbitraries.of(ACTORS);
            case "tiers" -> Arbitraries.of(Vocabulary.TIERS);
            case "origins" -> Arbitraries.of(Vocabulary.ORIGINS);
            case "horizons" -> Arbitraries.of(Vocabulary.HORIZONS);
            default -> Arbitraries.of(TAG_VALUES); // "#..."
        };
    }

    static Arbitrary<String> needles() {
        return Arbitraries.oneOf(
                Arbitraries.of("build", "BUILD-1", "fail", "alice", "ok", "prod", "", "x", "main"),
                Arbitraries.strings().withChars(NEEDLE_CHARS).ofMaxLength(4));
    }

    static Arbitrary<JsonNode> valueFor(String key) {
        return switch (key) {
            case "since", "until" -> times().map(TextNode::valueOf);
            case "text" -> needles().map(TextNode::valueOf);
            case "limit" -> Arbitraries.integers().between(1, 100).map(IntNode::valueOf);
            default -> stringList(valuesFor(key));
        };
    }

    static Arbitrary<Map.Entry<String, JsonNode>> entries() {
        return Arbitraries.of(FILTER_KEYS).flatMap(k -> valueFor(k).map(v -> Map.entry(k, v)));
    }

    static ObjectNode object(List<Map.Entry<String, JsonNode>> entries) {
        ObjectNode o = NODES.objectNode();
        entries.forEach(e -> o.set(e.getKey(), e.getValue()));
        return o;
    }

    @Provide
    Arbitrary<ObjectNode> clauses() {
        return entries().list().ofMaxSize(4).map(FilterPropertiesTest::object);
    }

    @Provide
    Arbitrary<JsonNode> filters() {
        Arbitrary<ObjectNode> clause = clauses();
        return Arbitraries.frequencyOf(
                Tuple.of(4, clause),
                Tuple.of(2, clause.list().ofMinSize(1).ofMaxSize(3).map(FilterPropertiesTest::arrayOf)));
    }

    /** Filters combined with {@link Filter#and}; a NullNode part stands for {@link Filter#ALL}. */
    @Provide
    Arbitrary<List<JsonNode>> combinedFilters() {
        return Arbitraries.frequencyOf(
                        Tuple.of(1, Arbitraries.just((JsonNode) NullNode.getInstance())), Tuple.of(6, filters()))
                .list()
                .ofMinSize(1)
                .ofMaxSize(3);
    }

    static ArrayNode arrayOf(List<? extends JsonNode> nodes) {
        ArrayNode a = NODES.arrayNode();
        a.addAll(nodes);
        return a;
    }

    static Filter parse(JsonNode node) {
        return Filter.parse(node, null);
    }

    static Filter combined(List<JsonNode> parts) {
        Filter f = parts.get(0).isNull() ? Filter.ALL : parse(parts.get(0));
        for (JsonNode part : parts.subList(1, parts.size())) {
            f = f.and(part.isNull() ? Filter.ALL : parse(part));
        }
        return f;
    }

    static ObjectNode single(String key, JsonNode value) {
        ObjectNode o = NODES.objectNode();
        o.set(key, value);
        return o;
    }

    /** The served field a list key compares with. */
    static String field(ObjectNode o, String key) {
        String field = switch (key) {
            case "types" -> "type";
            case "sources" -> "source";
            case "subjects" -> "subject";
            case "actors" -> "actor";
            case "tiers" -> "tier";
            case "origins" -> "origin";
            case "horizons" -> "horizon";
            default -> throw new IllegalArgumentException(key);
        };
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.textValue();
    }

    static Instant time(ObjectNode o) {
        return OffsetDateTime.parse(o.get("time").textValue()).toInstant();
    }

    // --- 1. identity ----------------------------------------------------------------------------------------------

    @Property
    void anEmptyFilterMatchesEverything(@ForAll("observations") Obs obs) {
        ObjectNode o = obs.served();
        assertThat(Filter.ALL.matches(o)).isTrue();
        assertThat(parse(NODES.objectNode()).matches(o)).isTrue();
        assertThat(parse(null).matches(o)).isTrue();
        assertThat(parse(NullNode.getInstance()).matches(o)).isTrue();
        assertThat(parse(arrayOf(List.of(NODES.objectNode()))).matches(o)).isTrue();
    }

    @Property
    void namingTheObservationsOwnValueMatchesIt(@ForAll("observations") Obs obs) {
        ObjectNode o = obs.served();
        for (String key : List.of("types", "sources", "actors", "tiers", "origins", "horizons")) {
            assertThat(parse(single(key, array(List.of(field(o, key))))).matches(o))
                    .as(key)
                    .isTrue();
            assertThat(parse(single(key, TextNode.valueOf(field(o, key)))).matches(o))
                    .as(key + " as one string")
                    .isTrue();
        }
        if (obs.subject() != null) {
            assertThat(parse(single("subjects", array(List.of(obs.subject())))).matches(o))
                    .isTrue();
        }
        JsonNode tags = o.get("data").get("tags");
        tags.fieldNames().forEachRemaining(tag -> {
            JsonNode v = tags.get(tag);
            ArrayNode wanted = NODES.arrayNode();
            if (v.isNull()) {
                wanted.addNull();
            } else {
                wanted.add(v.asText());
            }
            assertThat(parse(single("#" + tag, wanted)).matches(o))
                    .as("#" + tag)
                    .isTrue();
        });
        assertThat(parse(single("since", o.get("time"))).matches(o)).isTrue();
        assertThat(parse(single("until", o.get("time"))).matches(o)).isTrue();
        assertThat(parse(single("text", TextNode.valueOf(obs.status()))).matches(o))
                .isTrue();
        assertThat(parse(single(
                                "types",
                                TextNode.valueOf(
                                        obs.type().substring(0, obs.type().indexOf('.') + 1) + "*")))
                        .matches(o))
                .as("the type's first segment as a prefix")
                .isTrue();
    }

    /** The exact keys compare whole values: no prefix, no substring, no case folding. */
    @Property
    void exactKeysMatchOnlyEqualValues(
            @ForAll("observations") Obs obs,
            @ForAll @IntRange(max = 5) int keyIndex,
            @ForAll("anyExactValue") String value) {
        ObjectNode o = obs.served();
        String key = EXACT_KEYS.get(keyIndex);
        String v = fitVocabulary(key, value);
        assertThat(parse(single(key, array(List.of(v)))).matches(o))
                .as("%s %s", key, v)
                .isEqualTo(v.equals(field(o, key)));
    }

    @Provide
    Arbitrary<String> anyExactValue() {
        List<String> all = new ArrayList<>();
        for (String key : EXACT_KEYS) {
            all.addAll(
                    key.equals("tiers")
                            ? Vocabulary.TIERS
                            : key.equals("origins")
                                    ? Vocabulary.ORIGINS
                                    : key.equals("horizons") ? Vocabulary.HORIZONS : List.of());
        }
        all.addAll(SOURCES);
        all.addAll(SUBJECTS);
        all.addAll(ACTORS);
        all.addAll(List.of("build", "BUILD-1", "human", "monitor:w", "monitor:w-1 "));
        return Arbitraries.of(all);
    }

    /** {@code #tag: [v...]} needs data.tags[tag] present and among the values; {@code #tag: []} only present. */
    @Property
    void tagsMatchThePublishedTag(
            @ForAll("observations") Obs obs, @ForAll("tagNames") String tag, @ForAll("tagLists") List<String> wanted) {
        ObjectNode o = obs.served();
        JsonNode v = o.get("data").get("tags").get(tag);
        boolean expected = v != null && (wanted.isEmpty() || wanted.contains(v.isNull() ? null : v.textValue()));
        assertThat(parse(single("#" + tag, array(wanted))).matches(o)).isEqualTo(expected);
    }

    @Provide
    Arbitrary<String> tagNames() {
        return Arbitraries.of(TAG_NAMES);
    }

    @Provide
    Arbitrary<List<String>> tagLists() {
        return Arbitraries.of(TAG_VALUES).list().ofMaxSize(3);
    }

    // --- 2-4. AND across keys, OR within a key, OR across an array ------------------------------------------------

    @Property
    void keysAnd(@ForAll("observations") Obs obs, @ForAll("clauses") ObjectNode clause) {
        ObjectNode o = obs.served();
        boolean each = true;
        for (var it = clause.fields(); it.hasNext(); ) {
            var e = it.next();
            each &= parse(single(e.getKey(), e.getValue())).matches(o);
        }
        assertThat(parse(clause).matches(o)).as("%s", clause).isEqualTo(each);
    }

    @Property
    void valuesOr(
            @ForAll("observations") Obs obs, @ForAll("listKeys") String key, @ForAll("listValues") List<String> raw) {
        ObjectNode o = obs.served();
        List<String> values = key.startsWith("#")
                ? raw
                : raw.stream().map(v -> v == null ? "x" : v).toList();
        if (!key.startsWith("#")) {
            values = values.stream().map(v -> fitVocabulary(key, v)).toList();
        }
        boolean any = false;
        for (String v : values) {
            any |= parse(single(key, array(Arrays.asList(v)))).matches(o);
        }
        assertThat(parse(single(key, array(values))).matches(o))
                .as("%s %s", key, values)
                .isEqualTo(any);
    }

    /** The closed keys only take their vocabulary (anything else is refused); map a value into it. */
    static String fitVocabulary(String key, String value) {
        List<String> vocabulary = switch (key) {
            case "tiers" -> Vocabulary.TIERS;
            case "origins" -> Vocabulary.ORIGINS;
            case "horizons" -> Vocabulary.HORIZONS;
            default -> null;
        };
        return vocabulary == null || vocabulary.contains(value)
                ? value
                : vocabulary.get(Math.floorMod(value.hashCode(), vocabulary.size()));
    }

    @Provide
    Arbitrary<String> listKeys() {
        return Arbitraries.of(LIST_KEYS);
    }

    @Provide
    Arbitrary<List<String>> listValues() {
        List<String> all = new ArrayList<>();
        all.addAll(TYPES);
        all.addAll(TYPE_PREFIXES);
        all.addAll(SOURCES);
        all.addAll(SUBJECTS);
        all.addAll(ACTORS);
        all.addAll(Vocabulary.TIERS);
        all.addAll(Vocabulary.ORIGINS);
        all.addAll(Vocabulary.HORIZONS);
        all.addAll(TAG_VALUES);
        return Arbitraries.of(all).list().ofMinSize(1).ofMaxSize(4);
    }

    @Property
    void anArrayOfFiltersOrs(@ForAll("observations") Obs obs, @ForAll("clauseLists") List<ObjectNode> clauses) {
        ObjectNode o = obs.served();
        boolean any = clauses.stream().anyMatch(c -> parse(c).matches(o));
        assertThat(parse(arrayOf(clauses)).matches(o)).isEqualTo(any);
    }

    @Provide
    Arbitrary<List<ObjectNode>> clauseLists() {
        return clauses().list().ofMinSize(1).ofMaxSize(4);
    }

    // --- 5. types -------------------------------------------------------------------------------------------------

    @Property
    void typePrefixesMatchExactlyTheTypesThatStartWithThem(
            @ForAll("observations") Obs obs, @ForAll("typePrefixes") String prefix) {
        ObjectNode o = obs.served();
        String stem = prefix.substring(0, prefix.length() - 1);
        assertThat(parse(single("types", array(List.of(prefix)))).matches(o))
                .isEqualTo(obs.type().startsWith(stem));
    }

    @Property
    void aConcreteTypeMatchesOnlyItself(@ForAll("observations") Obs obs, @ForAll("types") String type) {
        ObjectNode o = obs.served();
        assertThat(parse(single("types", array(List.of(type)))).matches(o))
                .isEqualTo(obs.type().equals(type));
        assertThat(Filter.parse(single("types", array(List.of(type))), TYPES).matches(o))
                .isEqualTo(obs.type().equals(type));
    }

    @Provide
    Arbitrary<String> typePrefixes() {
        return Arbitraries.of(TYPE_PREFIXES);
    }

    @Provide
    Arbitrary<String> types() {
        return Arbitraries.of(TYPES);
    }

    // --- 6. narrowing ---------------------------------------------------------------------------------------------

    @Property
    void andIsExactlyBothFilters(
            @ForAll("observations") Obs obs,
            @ForAll("combinedFilters") List<JsonNode> f,
            @ForAll("combinedFilters") List<JsonNode> g) {
        ObjectNode o = obs.served();
        Filter ff = combined(f);
        Filter gg = combined(g);
        boolean both = ff.matches(o) && gg.matches(o);
        assertThat(ff.and(gg).matches(o)).as("F=%s G=%s", f, g).isEqualTo(both);
        assertThat(gg.and(ff).matches(o)).as("G=%s F=%s", g, f).isEqualTo(both);
        assertThat(ff.and(Filter.ALL).matches(o)).isEqualTo(ff.matches(o));
        assertThat(Filter.ALL.and(ff).matches(o)).isEqualTo(ff.matches(o));
    }

    // --- 7. since / until -----------------------------------------------------------------------------------------

    @Property
    void sinceAndUntilAreInclusiveBoundsInAnyZone(
            @ForAll("observations") Obs obs,
            @ForAll("deltas") long sinceDelta,
            @ForAll("offsetsP") ZoneOffset sinceZone,
            @ForAll("deltas") long untilDelta,
            @ForAll("offsetsP") ZoneOffset untilZone,
            @ForAll boolean withSince,
            @ForAll boolean withUntil) {
        ObjectNode o = obs.served();
        Instant t = time(o);
        Instant since = t.plusNanos(sinceDelta);
        Instant until = t.plusNanos(untilDelta);
        ObjectNode filter = NODES.objectNode();
        if (withSince) {
            filter.put("since", format(since, sinceZone));
        }
        if (withUntil) {
            filter.put("until", format(until, untilZone));
        }
        boolean expected = (!withSince || !t.isBefore(since)) && (!withUntil || !t.isAfter(until));
        assertThat(parse(filter).matches(o))
                .as("%s at %s", filter, o.get("time"))
                .isEqualTo(expected);
    }

    @Property
    void sinceAndUntilForArbitraryInstants(
            @ForAll("observations") Obs obs, @ForAll("timesP") String since, @ForAll("timesP") String until) {
        ObjectNode o = obs.served();
        Instant t = time(o);
        ObjectNode filter = NODES.objectNode().put("since", since).put("until", until);
        boolean expected = !t.isBefore(OffsetDateTime.parse(since).toInstant())
                && !t.isAfter(OffsetDateTime.parse(until).toInstant());
        assertThat(parse(filter).matches(o)).isEqualTo(expected);
    }

    @Provide
    Arbitrary<Long> deltas() {
        long second = 1_000_000_000L;
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(0L, 1L, -1L, 1_000_000L, -1_000_000L, second, -second)),
                Tuple.of(2, Arbitraries.of(3600 * second, -3600 * second, 14 * 3600 * second, -14 * 3600 * second)),
                Tuple.of(3, Arbitraries.longs().between(-30L * 86400 * second, 30L * 86400 * second)));
    }

    @Provide
    Arbitrary<ZoneOffset> offsetsP() {
        return offsets();
    }

    @Provide
    Arbitrary<String> timesP() {
        return times();
    }

    // --- 8. text --------------------------------------------------------------------------------------------------

    /** Every string in the served data: keys and scalar values, lower-cased. */
    static List<String> dataStrings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                out.add(e.getKey().toLowerCase(Locale.ROOT));
                out.addAll(dataStrings(e.getValue()));
            });
        } else if (node.isArray()) {
            node.forEach(n -> out.addAll(dataStrings(n)));
        } else if (!node.isNull()) {
            // A null is an absent value, not the text "null".
            out.add(node.asText().toLowerCase(Locale.ROOT));
        }
        return out;
    }

    static String flipCase(String s, long seed) {
        Random r = new Random(seed);
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(r.nextBoolean() ? Character.toUpperCase(c) : Character.toLowerCase(c));
        }
        return b.toString();
    }

    @Property
    void textFindsAnySubstringOfSubjectOrDataInAnyCase(
            @ForAll("observations") Obs obs,
            @ForAll boolean fromSubject,
            @ForAll @IntRange(max = 20) int from,
            @ForAll @IntRange(max = 20) int length,
            @ForAll long caseSeed) {
        ObjectNode o = obs.served();
        String haystack = fromSubject && obs.subject() != null ? obs.subject() : obs.status();
        int start = Math.min(from, haystack.length());
        String needle = flipCase(haystack.substring(start, Math.min(haystack.length(), start + length)), caseSeed);
        assertThat(parse(single("text", TextNode.valueOf(needle))).matches(o))
                .as("text %s", needle)
                .isTrue();
    }

    @Property
    void textMatchesOnlyWhatSubjectOrDataContains(@ForAll("observations") Obs obs, @ForAll("needlesP") String needle) {
        ObjectNode o = obs.served();
        String n = needle.toLowerCase(Locale.ROOT);
        boolean expected =
                obs.subject() != null && obs.subject().toLowerCase(Locale.ROOT).contains(n)
                        || dataStrings(o.get("data")).stream().anyMatch(s -> s.contains(n));
        assertThat(parse(single("text", TextNode.valueOf(needle))).matches(o))
                .as("text %s", needle)
                .isEqualTo(expected);
    }

    /**
     * A data value that JSON has to escape (a quote, a backslash, a newline) must be found as written: the text filter
     * searches the data, not its JSON serialisation.
     */
    @Property
    void textFindsDataValuesThatJsonEscapes(@ForAll("observations") Obs obs, @ForAll("escapedValues") String status) {
        Obs withStatus = new Obs(obs.who(), obs.type(), obs.subject(), obs.time(), obs.branch(), obs.env(), status);
        ObjectNode o = withStatus.served();
        assertThat(parse(single("text", TextNode.valueOf(status))).matches(o))
                .as("text %s", status)
                .isTrue();
    }

    @Provide
    Arbitrary<String> escapedValues() {
        return Arbitraries.strings().withChars("ab\"\\\n\t/").ofMinLength(1).ofMaxLength(6);
    }

    /** Case-insensitive beyond ASCII: any substring of a subject in Greek, German or French, in any case. */
    @Property
    void textIsCaseInsensitiveBeyondAscii(
            @ForAll("observations") Obs obs,
            @ForAll("unicodeSubjects") String subject,
            @ForAll @IntRange(max = 8) int from,
            @ForAll @IntRange(max = 8) int length,
            @ForAll long caseSeed) {
        Obs withSubject = new Obs(obs.who(), obs.type(), subject, obs.time(), obs.branch(), obs.env(), obs.status());
        ObjectNode o = withSubject.served();
        int start = Math.min(from, subject.length());
        String needle = flipCase(subject.substring(start, Math.min(subject.length(), start + length)), caseSeed);
        assertThat(parse(single("text", TextNode.valueOf(needle))).matches(o))
                .as("text %s in subject %s", needle, subject)
                .isTrue();
    }

    @Provide
    Arbitrary<String> unicodeSubjects() {
        return Arbitraries.strings().withChars("αβσςΣΟΔéÉüÜøØ -").ofMinLength(1).ofMaxLength(8);
    }

    @Provide
    Arbitrary<String> needlesP() {
        return needles();
    }

    // --- 9. parsing -----------------------------------------------------------------------------------------------

    @Property
    void wellFormedFiltersParse(@ForAll("filters") JsonNode filter) {
        assertThatCode(() -> Filter.parse(filter, null)).doesNotThrowAnyException();
        assertThatCode(() -> Filter.parse(filter, TYPES)).doesNotThrowAnyException();
    }

    static final List<String> FUZZ_UNKNOWN_KEYS =
            List.of("typo", "Types", "", "tags", "#", "#<tag>", "#9x", "#a.b", " types");
    static final List<String> FUZZ_KEYS;

    static {
        List<String> keys = new ArrayList<>(List.of(
                "types",
                "sources",
                "subjects",
                "actors",
                "tiers",
                "origins",
                "horizons",
                "since",
                "until",
                "text",
                "limit",
                "#branch",
                "#_x",
                "#a-1"));
        keys.addAll(FUZZ_UNKNOWN_KEYS);
        FUZZ_KEYS = List.copyOf(keys);
    }

    static Arbitrary<JsonNode> scalars() {
        Arbitrary<String> strings = Arbitraries.oneOf(
                Arbitraries.of(
                        "demo.*",
                        "demo.a",
                        "nope.never",
                        "demo.*.x",
                        "*",
                        ".*",
                        "demo..*",
                        "measured",
                        "src",
                        "nope",
                        "human",
                        "event",
                        "2026-11-29T18:00:00Z",
                        "2026-11-29T18:00:00+01:00",
                        "2026-11-29",
                        "2026-11-29T18:00:00",
                        "2026-13-01T00:00:00Z",
                        "+999999999-12-31T23:59:59-18:00",
                        "-999999999-01-01T00:00:00+18:00",
                        ""),
                Arbitraries.strings().ofMaxLength(8));
        return Arbitraries.oneOf(
                Arbitraries.just(NullNode.getInstance()),
                Arbitraries.of(true, false).map(BooleanNode::valueOf),
                Arbitraries.integers().map(IntNode::valueOf),
                Arbitraries.of(0L, -1L, 1L, Long.MAX_VALUE, Long.MIN_VALUE).map(LongNode::valueOf),
                Arbitraries.of(1.0, 0.5, -2.0, Double.NaN).map(DoubleNode::valueOf),
                strings.map(TextNode::valueOf));
    }

    static Arbitrary<JsonNode> anyJson(int depth) {
        if (depth == 0) {
            return scalars();
        }
        Arbitrary<JsonNode> inner = anyJson(depth - 1);
        return Arbitraries.frequencyOf(
                Tuple.of(3, scalars()),
                Tuple.of(2, inner.list().ofMaxSize(3).map(FilterPropertiesTest::arrayOf)),
                Tuple.of(1, fuzzObjects(inner)));
    }

    static Arbitrary<JsonNode> fuzzObjects(Arbitrary<JsonNode> values) {
        return Combinators.combine(Arbitraries.of(FUZZ_KEYS), values)
                .as(Map::entry)
                .list()
                .ofMaxSize(4)
                .map(FilterPropertiesTest::object);
    }

    @Provide
    Arbitrary<JsonNode> anyFilterJson() {
        Arbitrary<JsonNode> values = anyJson(2);
        Arbitrary<JsonNode> objects = fuzzObjects(values);
        return Arbitraries.frequencyOf(
                Tuple.of(4, objects),
                Tuple.of(2, objects.list().ofMaxSize(3).map(FilterPropertiesTest::arrayOf)),
                Tuple.of(1, anyJson(3)));
    }

    @Property
    void parsingEitherSucceedsOrRefusesAsInvalidFilter(
            @ForAll("anyFilterJson") JsonNode json, @ForAll boolean withKnownTypes, @ForAll("observations") Obs obs) {
        Filter parsed;
        try {
            parsed = Filter.parse(json, withKnownTypes ? TYPES : null);
        } catch (ProtocolException e) {
            assertThat(e.code()).as("%s", json).isEqualTo(ErrorCode.INVALID_FILTER);
            return;
        }
        // accepted: then nothing unknown was in it, and it can be applied
        List<JsonNode> clauses = new ArrayList<>();
        if (json.isArray()) {
            json.forEach(clauses::add);
        } else {
            clauses.add(json);
        }
        for (JsonNode clause : clauses) {
            assertThat(clause.isObject() || clause.isNull() && !json.isArray())
                    .as("%s", json)
                    .isTrue();
            clause.fieldNames()
                    .forEachRemaining(
                            k -> assertThat(FUZZ_UNKNOWN_KEYS).as("%s", json).doesNotContain(k));
        }
        ObjectNode o = obs.served();
        assertThatCode(() -> parsed.matches(o)).as("%s", json).doesNotThrowAnyException();
    }

    @Property
    void anUnknownKeyIsAlwaysRefused(
            @ForAll("clauses") ObjectNode clause,
            @ForAll("unknownKeys") String key,
            @ForAll("anyJsonP") JsonNode value,
            @ForAll boolean inArray) {
        ObjectNode withUnknown = clause.deepCopy().set(key, value);
        JsonNode json = inArray ? arrayOf(List.of(NODES.objectNode(), withUnknown)) : withUnknown;
        Throwable thrown = catchThrowable(() -> Filter.parse(json, null));
        assertThat(thrown)
                .as("%s", json)
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_FILTER));
    }

    @Provide
    Arbitrary<String> unknownKeys() {
        return Arbitraries.oneOf(
                Arbitraries.of(FUZZ_UNKNOWN_KEYS),
                Arbitraries.strings()
                        .withChars("abcxyz<>#. 9")
                        .ofMinLength(1)
                        .ofMaxLength(6)
                        .filter(k -> !Set.copyOf(Filter.KNOWN_KEYS).contains(k) && !isTagKey(k)));
    }

    /** A tag key: '#', then a letter or '_', then letters, digits, '_' or '-'. */
    static boolean isTagKey(String k) {
        if (k.length() < 2 || k.charAt(0) != '#') {
            return false;
        }
        char first = k.charAt(1);
        if (!(first == '_' || first < 128 && Character.isLetter(first))) {
            return false;
        }
        return k.substring(2).chars().allMatch(c -> c == '_' || c == '-' || c < 128 && Character.isLetterOrDigit(c));
    }

    @Provide
    Arbitrary<JsonNode> anyJsonP() {
        return anyJson(2);
    }
}
