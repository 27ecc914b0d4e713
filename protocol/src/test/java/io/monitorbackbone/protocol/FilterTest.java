package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class FilterTest {
    private static final ObjectNode OBSERVATION = Publications.resolve(
                    PublicationsTest.monitor("human:alice"),
                    PublicationsTest.body(
                            "{\"type\":\"demo.build.finished\",\"subject\":\"build-1\",\"actor\":\"probe:ci\",\"data\":{\"status\":\"Failed\"},\"tags\":{\"branch\":\"main\"}}"),
                    Instant.parse("2026-11-29T18:00:00Z"))
            .served("w-1", 5, false);

    static Filter filter(String json) {
        return Filter.parse(Json.read(json.getBytes()), null);
    }

    @Test
    void keysAndValuesOrFiltersOr() {
        assertThat(filter("{\"types\":[\"demo.*\"],\"actors\":[\"probe:ci\"]}").matches(OBSERVATION))
                .isTrue();
        assertThat(filter("{\"types\":[\"demo.*\"],\"actors\":[\"agent:x\"]}").matches(OBSERVATION))
                .isFalse();
        assertThat(filter("{\"subjects\":[\"other\",\"build-1\"]}").matches(OBSERVATION))
                .isTrue();
        assertThat(filter("[{\"subjects\":[\"other\"]},{\"tiers\":[\"measured\"]}]")
                        .matches(OBSERVATION))
                .isTrue();
        assertThat(filter("{}").matches(OBSERVATION)).isTrue();
    }

    @Test
    void onlyFiltersThatConstrainNothingPassEverything() {
        assertThat(filter("{}").passesEverything()).isTrue();
        assertThat(filter("{}").and(filter("{\"limit\":5}")).and(Filter.ALL).passesEverything())
                .isTrue();
        assertThat(filter("[{\"subjects\":[\"other\"]},{}]").passesEverything()).isTrue();
        assertThat(filter("{\"subjects\":[\"build-1\"]}").passesEverything()).isFalse();
        assertThat(filter("{}").and(filter("{\"text\":\"x\"}")).passesEverything())
                .isFalse();
        assertThat(filter("{\"#branch\":[]}").passesEverything()).isFalse();
    }

    @Test
    void textTagsAndTimeNarrow() {
        assertThat(filter("{\"text\":\"FAILED\"}").matches(OBSERVATION)).isTrue();
        assertThat(filter("{\"#branch\":[\"main\"]}").matches(OBSERVATION)).isTrue();
        assertThat(filter("{\"#branch\":[\"dev\"]}").matches(OBSERVATION)).isFalse();
        assertThat(filter("{\"since\":\"2026-11-29T19:00:00+01:00\"}").matches(OBSERVATION))
                .isTrue();
        assertThat(filter("{\"until\":\"2026-11-29T17:59:59Z\"}").matches(OBSERVATION))
                .isFalse();
    }

    @Test
    void andOnlyNarrows() {
        Filter stored = filter("{\"types\":[\"demo.*\"]}");
        assertThat(stored.and(filter("{\"types\":[\"demo.build.finished\"]}")).matches(OBSERVATION))
                .isTrue();
        assertThat(stored.and(filter("{\"types\":[\"other.thing\"]}")).matches(OBSERVATION))
                .isFalse();
        assertThat(filter("{\"types\":[\"other.*\"]}")
                        .and(filter("{\"types\":[\"demo.*\"]}"))
                        .matches(OBSERVATION))
                .isFalse();
    }

    @Test
    void anUnknownKeyOrTypeIsRefusedWithWhatIsKnown() {
        assertThatThrownBy(() -> filter("{\"typo\":1}")).isInstanceOfSatisfying(ProtocolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_FILTER);
            assertThat(e.toJson().get("known_keys").toString()).contains("types", "#<tag>");
        });
        assertThatThrownBy(
                        () -> Filter.parse(Json.read("{\"types\":[\"nope.never\"]}".getBytes()), List.of("demo.note")))
                .isInstanceOfSatisfying(
                        ProtocolException.class,
                        e -> assertThat(e.toJson().get("known_types").toString())
                                .contains("demo.note"));
    }

    @Test
    void theServersOwnRowsAreKnownTypesBeforeTheLogHasCarriedOne() {
        // A reader of a bridged monitor may ask for the bridge's source rows alone, as for any protocol row, before the
        // first one is written.
        List<String> known = Filter.knownTypes(List.of("com.example.order"), List.of());
        assertThat(known).contains(Vocabulary.BRIDGE_SOURCE, Vocabulary.CONFIGURED, "com.example.order");
        assertThat(Filter.parse(Json.read(("{\"types\":[\"" + Vocabulary.BRIDGE_SOURCE + "\"]}").getBytes()), known))
                .isNotNull();
    }

    @Test
    void anInlineValueOutsideTheStoredFilterWidensItsKey() {
        Filter stored = filter("{\"types\":[\"x.a\"]}");

        Filter.Widening w = stored.widening(filter("{\"types\":[\"x.b\"]}"));

        assertThat(w).isNotNull();
        assertThat(w.key()).isEqualTo("types");
        assertThat(w.outside()).containsExactly("x.b");
        assertThat(stored.widening(filter("{\"types\":[\"x.a\",\"x.b\"]}")).outside())
                .containsExactly("x.b");
        assertThat(stored.widening(filter("{\"types\":[\"x.*\"]}")))
                .as("a wildcard over a concrete type widens")
                .isNotNull();
        assertThat(stored.widening(filter("{\"types\":[\"x.a\"]}"))).isNull();
    }

    @Test
    void aConcreteTypeOrANarrowerWildcardUnderAStoredWildcardNarrows() {
        Filter stored = filter("{\"types\":[\"demo.*\"]}");

        assertThat(stored.widening(filter("{\"types\":[\"demo.note\"]}"))).isNull();
        assertThat(stored.widening(filter("{\"types\":[\"demo.build.*\",\"demo.*\"]}")))
                .isNull();
        assertThat(stored.widening(filter("{\"types\":[\"other.thing\"]}")).outside())
                .containsExactly("other.thing");
        assertThat(stored.widening(filter("{\"types\":[\"demo*\"]}")))
                .as("demo* also passes demonstration.x")
                .isNotNull();
    }

    @Test
    void aKeyTheStoredFilterLeavesOpenNarrowsWhateverItNames() {
        assertThat(filter("{\"types\":[\"demo.*\"]}").widening(filter("{\"subjects\":[\"o\"],\"#env\":[\"dev\"]}")))
                .isNull();
        assertThat(Filter.ALL.widening(filter("{\"types\":[\"x.b\"]}"))).isNull();
        assertThat(filter("{\"#env\":[]}").widening(filter("{\"#env\":[\"dev\"]}")))
                .as("an empty tag list passes any value")
                .isNull();
        Filter.Widening tag = filter("{\"#env\":[\"prod\"]}").widening(filter("{\"#env\":[\"dev\"]}"));
        assertThat(tag.key()).isEqualTo("#env");
        assertThat(tag.outside()).containsExactly("dev");
    }

    @Test
    void aValueOnlyOneStoredAlternativePassesNarrowsAndEveryAndedFilterMustPassIt() {
        Filter alternatives = filter("[{\"types\":[\"x.a\"]},{\"types\":[\"x.b\"],\"subjects\":[\"s\"]}]");
        Filter anded = filter("{\"types\":[\"x.*\"]}").and(filter("{\"types\":[\"x.a\"]}"));

        assertThat(alternatives.widening(filter("{\"types\":[\"x.b\"]}"))).isNull();
        assertThat(alternatives.widening(filter("{\"types\":[\"x.c\"]}")).outside())
                .containsExactly("x.c");
        assertThat(anded.widening(filter("{\"types\":[\"x.a\"]}"))).isNull();
        assertThat(anded.widening(filter("{\"types\":[\"x.b\"]}")).outside()).containsExactly("x.b");
    }
}
