package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConformReportTest {
    private static final Result PASS = new Result("C01", "discover shape", Status.PASS, "fine", 12, false);
    private static final Result SKIP = new Result("C17", "needs admin", Status.SKIP, "no admin token", 0, false);
    private static final Leftovers.Outcome NOTHING_RETIRED = new Leftovers.Outcome(0, 0, List.of());
    private static final Result FAIL = new Result("C05", "pull twice", Status.FAIL, "POST x → 500", 40, false);

    @Test
    void passesAndSkipsExitZero() {
        ConformReport report = new ConformReport(List.of(PASS, SKIP), "http://h", 1000, NOTHING_RETIRED);

        assertThat(report.exitCode()).isZero();
        assertThat(report.count(Status.PASS)).isEqualTo(1);
        assertThat(report.count(Status.SKIP)).isEqualTo(1);
    }

    @Test
    void anyFailureExitsOne() {
        ConformReport report = new ConformReport(List.of(PASS, FAIL, SKIP), "http://h", 1000, NOTHING_RETIRED);

        assertThat(report.exitCode()).isEqualTo(1);
        assertThat(report.summary()).isEqualTo("3 checks against http://h: 1 passed, 1 failed, 1 skipped in 1.0 s");
    }

    @Test
    void noChecksIsNotAFailure() {
        assertThat(new ConformReport(List.of(), "http://h", 0, NOTHING_RETIRED).exitCode())
                .isZero();
    }

    @Test
    void jsonIsAnArrayOfResultsInOrder() throws Exception {
        String json = new ConformReport(List.of(PASS, FAIL), "http://h", 52, NOTHING_RETIRED).json();

        JsonNode top = new ObjectMapper().readTree(json);
        assertThat(top.get("base").asText()).isEqualTo("http://h");
        assertThat(top.get("passed").asInt()).isEqualTo(1);
        assertThat(top.get("failed").asInt()).isEqualTo(1);
        assertThat(top.at("/cleanup/monitors_retired").asInt()).isZero();
        JsonNode array = top.get("results");
        assertThat(array.isArray()).isTrue();
        assertThat(array).hasSize(2);
        JsonNode failed = array.get(1);
        assertThat(failed.get("id").asText()).isEqualTo("C05");
        assertThat(failed.get("title").asText()).isEqualTo("pull twice");
        assertThat(failed.get("status").asText()).isEqualTo("FAIL");
        assertThat(failed.get("reason").asText()).isEqualTo("POST x → 500");
        assertThat(failed.get("ms").asLong()).isEqualTo(40);
        assertThat(failed.fieldNames())
                .toIterable()
                .containsExactly("id", "title", "status", "reason", "ms", "stricter_than_protocol");
        assertThat(failed.get("stricter_than_protocol").asBoolean()).isFalse();
    }

    @Test
    void humanOutputIsOneLinePerCheckThenTheSummary() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConformReport report = new ConformReport(List.of(PASS, FAIL), "http://h", 52, NOTHING_RETIRED);

        report.printHuman(new PrintStream(bytes, true, StandardCharsets.UTF_8));

        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines)
                .containsExactly(
                        "C01  PASS discover shape: fine (12 ms)",
                        "C05  FAIL pull twice: POST x → 500 (40 ms)",
                        report.summary(),
                        "cleanup: retired the 0 monitors and 0 subscriptions this run created (their logs stay on the server, as retirement keeps them)");
    }

    @Test
    void aStricterCheckIsLabelledAndItsFailureDoesNotFailTheRun() throws Exception {
        Result stricter = new Result("C17+", "committed cursor", Status.FAIL, "→ 200", 5, true);
        ConformReport report = new ConformReport(
                List.of(PASS, stricter),
                "http://h",
                52,
                new Leftovers.Outcome(3, 4, List.of("monitor m: POST /mp/v0/monitors/m/retire → 401 UNAUTHORIZED")));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        report.printHuman(new PrintStream(bytes, true, StandardCharsets.UTF_8));

        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(report.exitCode()).isZero();
        assertThat(lines.get(1)).isEqualTo("C17+ FAIL [stricter than the protocol] committed cursor: → 200 (5 ms)");
        assertThat(lines.get(2))
                .endsWith("; 1 of them stricter than the protocol (C17+), 1 failed, which does not fail the run");
        assertThat(lines.get(3))
                .isEqualTo(
                        "cleanup: retired the 3 monitors and 4 subscriptions this run created (their logs stay"
                                + " on the server, as retirement keeps them); could not retire 1: monitor m: POST /mp/v0/monitors/m/retire → 401 UNAUTHORIZED");
        JsonNode json = new ObjectMapper().readTree(report.json());
        assertThat(json.at("/results/1/stricter_than_protocol").asBoolean()).isTrue();
        assertThat(json.at("/cleanup/not_retired/0").asText()).startsWith("monitor m:");
        assertThat(new ConformReport(List.of(PASS, stricter, FAIL), "http://h", 1, NOTHING_RETIRED).exitCode())
                .isEqualTo(1);
    }
}
