package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RunnerTest {
    private final Options options = new Options(URI.create("http://127.0.0.1:1"), null, null, false, Set.of(), false);

    private Result run(Check.Body body) {
        return Runner.run(
                new Check("C99", "a check", body), new CheckClient(new Wire(options.base()), options, "run", "C99"));
    }

    @Test
    void aReturnedReasonIsAPass() {
        Result r = run(api -> "all good");

        assertThat(r.status()).isEqualTo(Status.PASS);
        assertThat(r.reason()).isEqualTo("all good");
        assertThat(r.id()).isEqualTo("C99");
        assertThat(r.title()).isEqualTo("a check");
        assertThat(r.ms()).isNotNegative();
    }

    @Test
    void aFailedExpectationIsAFailWithItsReason() {
        Result r = run(api -> {
            CheckClient.that(false, "POST /mp/v0/x → 500, expected 201");
            return "unreachable";
        });

        assertThat(r.status()).isEqualTo(Status.FAIL);
        assertThat(r.reason()).isEqualTo("POST /mp/v0/x → 500, expected 201");
    }

    @Test
    void aSchemaViolationIsAFailThatSaysSo() {
        Result r = run(api -> {
            throw new Wire.SchemaViolation("GET /mp/v0/monitors/x → 200 served an invalid monitor: $.head: missing");
        });

        assertThat(r.status()).isEqualTo(Status.FAIL);
        assertThat(r.reason()).startsWith("schema: GET /mp/v0/monitors/x");
    }

    @Test
    void aSkipNeedsAndKeepsItsReason() {
        Result r = run(api -> {
            throw new CheckSkipped("needs --admin-token");
        });

        assertThat(r.status()).isEqualTo(Status.SKIP);
        assertThat(r.reason()).isEqualTo("needs --admin-token");
    }

    @Test
    void aBrokenCheckFailsRatherThanPassing() {
        Result r = run(api -> {
            throw new IllegalStateException("bug in the check");
        });

        assertThat(r.status()).isEqualTo(Status.FAIL);
        assertThat(r.reason()).contains("IllegalStateException", "bug in the check");
    }

    @Test
    void anUnreachableServerFailsTheCheck() {
        Result r = run(api -> api.discover().toString());

        assertThat(r.status()).isEqualTo(Status.FAIL);
        assertThat(r.reason()).startsWith("cannot reach the server");
    }

    @Test
    void reasonsAreOneLineAndBounded() {
        Result r = run(api -> "first\nsecond\t third " + "x".repeat(1000));

        assertThat(r.reason()).doesNotContain("\n").startsWith("first second third");
        assertThat(r.reason().length()).isLessThanOrEqualTo(401);
    }

    @Test
    void runIdsFitInMonitorIds() {
        assertThat(Runner.runId()).matches("[0-9a-f]{6}");
    }
}
