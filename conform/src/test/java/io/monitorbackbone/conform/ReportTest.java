package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static final Result PASS = new Result("C01", "discover shape", Status.PASS, "fine", 12);
    private static final Result SKIP = new Result("C17", "needs admin", Status.SKIP, "no admin token", 0);
    private static final Result FAIL = new Result("C05", "pull twice", Status.FAIL, "POST x → 500", 40);

    @Test
    void passesAndSkipsExitZero() {
        Report report = new Report(List.of(PASS, SKIP), "http://h", 1000);

        assertThat(report.exitCode()).isZero();
        assertThat(report.count(Status.PASS)).isEqualTo(1);
        assertThat(report.count(Status.SKIP)).isEqualTo(1);
    }

    @Test
    void anyFailureExitsOne() {
        Report report = new Report(List.of(PASS, FAIL, SKIP), "http://h", 1000);

        assertThat(report.exitCode()).isEqualTo(1);
        assertThat(report.summary()).isEqualTo("3 checks against http://h: 1 passed, 1 failed, 1 skipped in 1.0 s");
    }

    @Test
    void noChecksIsNotAFailure() {
        assertThat(new Report(List.of(), "http://h", 0).exitCode()).isZero();
    }

    @Test
    void jsonIsAnArrayOfResultsInOrder() throws Exception {
        String json = new Report(List.of(PASS, FAIL), "http://h", 52).json();

        JsonNode array = new ObjectMapper().readTree(json);
        assertThat(array.isArray()).isTrue();
        assertThat(array).hasSize(2);
        JsonNode failed = array.get(1);
        assertThat(failed.get("id").asText()).isEqualTo("C05");
        assertThat(failed.get("title").asText()).isEqualTo("pull twice");
        assertThat(failed.get("status").asText()).isEqualTo("FAIL");
        assertThat(failed.get("reason").asText()).isEqualTo("POST x → 500");
        assertThat(failed.get("ms").asLong()).isEqualTo(40);
        assertThat(failed.fieldNames()).toIterable().containsExactly("id", "title", "status", "reason", "ms");
    }

    @Test
    void humanOutputIsOneLinePerCheckThenTheSummary() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Report report = new Report(List.of(PASS, FAIL), "http://h", 52);

        report.printHuman(new PrintStream(bytes, true, StandardCharsets.UTF_8));

        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).containsExactly(
                "C01  PASS discover shape: fine (12 ms)",
                "C05  FAIL pull twice: POST x → 500 (40 ms)",
                report.summary());
    }
}
