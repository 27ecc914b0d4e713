package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConformanceTest {
    /** BRIEF.md's list, in its order. */
    static final List<String> BRIEF_IDS;
    /** BRIEF_IDS and our stricter checks, each right after the check it goes beyond. */
    static final List<String> CATALOG_IDS;

    static {
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= 34; i++) {
            if (i != 31) {
                ids.add(String.format("C%02d", i));
            }
            if (i == 20) {
                ids.add("C20b");
            }
        }
        BRIEF_IDS = List.copyOf(ids);
        List<String> catalog = new ArrayList<>(ids);
        catalog.add(catalog.indexOf("C17") + 1, "C17+");
        CATALOG_IDS = List.copyOf(catalog);
    }

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String output() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theCatalogHoldsEveryCheckOfTheBriefOnceInOrder() {
        List<String> ids = CheckList.all().stream().map(Check::id).toList();

        assertThat(ids).containsExactlyElementsOf(CATALOG_IDS);
        assertThat(CheckList.all())
                .extracting(Check::title)
                .doesNotHaveDuplicates()
                .allSatisfy(t -> assertThat(t).isNotBlank());
        assertThat(CheckList.all())
                .filteredOn(Check::stricter)
                .extracting(Check::id)
                .containsExactly("C17+");
    }

    @Test
    void onlySelectsTheNamedChecksInCatalogOrder() {
        List<Check> picked = Conformance.select(CheckList.all(), Set.of("C20B", "C05"));

        assertThat(picked).extracting(Check::id).containsExactly("C05", "C20b");
    }

    @Test
    void anUnknownCheckIsAUsageErrorAndRunsNothing() {
        int exit = Conformance.run(new String[] {"--only", "C05,C99", "--base", "http://127.0.0.1:1"}, out, Map.of());

        assertThat(exit).isEqualTo(2);
        assertThat(output()).contains("no such check: C99").contains("usage: conform");
    }

    @Test
    void helpPrintsTheUsageAndExitsZero() {
        assertThat(Conformance.run(new String[] {"--help"}, out, Map.of())).isZero();
        assertThat(output()).startsWith("usage: conform");
    }

    @Test
    void aSkippedCheckAloneExitsZeroAndSaysWhy() {
        int exit = Conformance.run(new String[] {"--only", "C17", "--base", "http://127.0.0.1:1"}, out, Map.of());

        assertThat(exit).isZero();
        List<String> lines = output().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("C17  SKIP ").contains("--admin-token");
        assertThat(lines.get(1)).contains("1 checks against http://127.0.0.1:1: 0 passed, 0 failed, 1 skipped");
        assertThat(lines.get(2)).startsWith("cleanup: retired the 0 monitors and 0 subscriptions this run created");
    }

    @Test
    void aFailureExitsOneAndJsonCarriesEveryField() throws Exception {
        int exit = Conformance.run(
                new String[] {"--only", "C01,C17", "--json"}, out, Map.of("MP_BASE", "http://127.0.0.1:1"));

        assertThat(exit).isEqualTo(1);
        JsonNode run = new ObjectMapper().readTree(output());
        JsonNode results = run.get("results");
        assertThat(results).hasSize(2);
        assertThat(run.get("failed").asInt()).isEqualTo(1);
        assertThat(run.at("/cleanup/monitors_retired").asInt()).isZero();
        assertThat(run.at("/cleanup/not_retired").isArray()).isTrue();
        assertThat(results.get(0).get("id").asText()).isEqualTo("C01");
        assertThat(results.get(0).get("status").asText()).isEqualTo("FAIL");
        assertThat(results.get(0).get("reason").asText()).startsWith("cannot reach the server");
        assertThat(results.get(1).get("status").asText()).isEqualTo("SKIP");
        assertThat(results.get(1).get("ms").isIntegralNumber()).isTrue();
    }
}
