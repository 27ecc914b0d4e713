package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
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
    private static JsonNode cleanup;

    @BeforeAll
    static void runTheWholeSuiteOnce() throws Exception {
        server = ServerProcess.builder()
                .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                .env("MP_ADMIN_TOKEN", ADMIN)
                .env("MP_REGISTRATION_TOKEN", REGISTRATION)
                .start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        exit = Conformance.run(args("--json"), new PrintStream(out, true, StandardCharsets.UTF_8), Map.of());
        JsonNode run = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        for (JsonNode r : run.get("results")) {
            results.put(r.get("id").asText(), r);
        }
        cleanup = run.get("cleanup");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String[] args(String... more) {
        List<String> all = new java.util.ArrayList<>(List.of(
                "--base", server.baseUri().toString(), "--admin-token", ADMIN, "--registration-token", REGISTRATION));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @TestFactory
    Stream<DynamicTest> everyCheckPasses() {
        return ConformanceTest.CATALOG_IDS.stream()
                .map(id -> dynamicTest(id, () -> {
                    JsonNode r = results.get(id);
                    assertThat(r).as("no result for " + id).isNotNull();
                    assertThat(r.get("status").asText())
                            .as(id + " " + r.get("title").asText() + ": "
                                    + r.get("reason").asText())
                            .isEqualTo("PASS");
                }));
    }

    @Test
    void theRunReportsEveryCheckAndExitsZero() {
        assertThat(results.keySet()).containsExactlyElementsOf(ConformanceTest.CATALOG_IDS);
        assertThat(results.get("C17+").get("stricter_than_protocol").asBoolean())
                .isTrue();
        assertThat(results.get("C17").get("stricter_than_protocol").asBoolean()).isFalse();
        assertThat(exit).as(results.toString()).isZero();
    }

    @Test
    void theRunRetiredEveryMonitorAndSubscriptionItCreated() throws Exception {
        assertThat(cleanup.get("not_retired")).as(cleanup.toString()).isEmpty();
        assertThat(cleanup.get("monitors_retired").asInt())
                .as(cleanup.toString())
                .isGreaterThan(30);
        assertThat(cleanup.get("subscriptions_retired").asInt())
                .as(cleanup.toString())
                .isGreaterThan(30);
        HttpResponse<String> listed = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.baseUri() + "/mp/v0/monitors"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        List<String> active = new java.util.ArrayList<>();
        new ObjectMapper().readTree(listed.body()).get("monitors").forEach(m -> {
            if (m.get("id").asText().startsWith("cf-") && m.get("active").asBoolean()) {
                active.add(m.get("id").asText());
            }
        });
        assertThat(active).as("monitors conform created and left active").isEmpty();
    }

    @Test
    void aSecondRunAgainstTheSameServerPassesToo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int again = Conformance.run(args(), new PrintStream(out, true, StandardCharsets.UTF_8), Map.of());

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(ConformanceTest.CATALOG_IDS.size() + 2);
        assertThat(lines.subList(0, lines.size() - 2))
                .allSatisfy(l -> assertThat(l).matches("C\\d\\d[b+ ] {1,2}PASS .*"));
        assertThat(lines.get(lines.size() - 2))
                .contains(
                        ConformanceTest.CATALOG_IDS.size() + " passed, 0 failed, 0 skipped",
                        "1 of them stricter than the protocol (C17+), 0 failed");
        assertThat(lines.get(lines.size() - 1))
                .startsWith("cleanup: retired the ")
                .doesNotContain("could not retire");
        assertThat(again).isZero();
    }
}
