package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The whole suite against our packaged gateway on a real broker, configured as an operator would: tokens required. */
class ConformanceIT {
    private static final String ADMIN = "admin-" + Long.toHexString(System.nanoTime());
    private static final String REGISTRATION = "reg-" + Long.toHexString(System.nanoTime());

    private static ServerProcess server;
    private static int exit;
    private static final Map<String, JsonNode> results = new LinkedHashMap<>();

    @BeforeAll
    static void runTheWholeSuiteOnce() throws Exception {
        server = ServerProcess.builder()
                .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                .env("MP_ADMIN_TOKEN", ADMIN)
                .env("MP_REGISTRATION_TOKEN", REGISTRATION)
                .start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exit = Conformance.run(args("--json"), new PrintStream(out, true, StandardCharsets.UTF_8), Map.of());
        for (JsonNode r : new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8))) {
            results.put(r.get("id").asText(), r);
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String[] args(String... more) {
        List<String> all = new java.util.ArrayList<>(List.of("--base", server.baseUri().toString(), "--admin-token", ADMIN,
                "--registration-token", REGISTRATION));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @TestFactory
    Stream<DynamicTest> everyCheckPasses() {
        return ConformanceTest.BRIEF_IDS.stream().map(id -> dynamicTest(id, () -> {
            JsonNode r = results.get(id);
            assertThat(r).as("no result for " + id).isNotNull();
            assertThat(r.get("status").asText()).as(id + " " + r.get("title").asText() + ": " + r.get("reason").asText())
                    .isEqualTo("PASS");
        }));
    }

    @Test
    void theRunReportsEveryCheckAndExitsZero() {
        assertThat(results.keySet()).containsExactlyElementsOf(ConformanceTest.BRIEF_IDS);
        assertThat(exit).as(results.toString()).isZero();
    }

    @Test
    void aSecondRunAgainstTheSameServerPassesToo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int again = Conformance.run(args(), new PrintStream(out, true, StandardCharsets.UTF_8), Map.of());

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(ConformanceTest.BRIEF_IDS.size() + 1);
        assertThat(lines.subList(0, lines.size() - 1)).allSatisfy(l -> assertThat(l).matches("C\\d\\d[b ] {1,2}PASS .*"));
        assertThat(lines.get(lines.size() - 1)).contains(ConformanceTest.BRIEF_IDS.size() + " passed, 0 failed, 0 skipped");
        assertThat(again).isZero();
    }
}
