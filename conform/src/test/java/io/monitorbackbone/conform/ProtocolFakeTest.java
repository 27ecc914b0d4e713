package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The checks tell the truth about servers that differ from ours: C08 demands the protocol's refusal of a widening inline
 * filter; C17 asks only what the protocol's suite asks (a replay below the floor), and our stricter demand is C17+, whose
 * FAIL does not fail the run; and a run retires every monitor and subscription it created, failing checks or not.
 */
class ProtocolFakeTest {
    private static final ProtocolFake.Behaviour LIKE_OURS = new ProtocolFake.Behaviour(true, true);

    private static Runner.Run run(ProtocolFake server, String... ids) {
        Options options =
                Options.parse(new String[] {"--base", server.base().toString(), "--admin-token", "a"}, Map.of());
        return Runner.run(Conformance.select(CheckList.all(), Set.of(ids)), options, r -> {});
    }

    private static Result result(Runner.Run run, String id) {
        return run.results().stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void c08FailsAgainstAServerThatAnswersAWideningInlineFilterWithNothing() {
        try (ProtocolFake silent = new ProtocolFake(new ProtocolFake.Behaviour(false, true));
                ProtocolFake refusing = new ProtocolFake(LIKE_OURS)) {
            Result failed = result(run(silent, "C08"), "C08");
            Result passed = result(run(refusing, "C08"), "C08");

            assertThat(failed.status()).as(failed.reason()).isEqualTo(Status.FAIL);
            assertThat(failed.reason()).contains("types=org.elsewhere.thing", "→ 200", "expected 400 INVALID_FILTER");
            assertThat(passed.status()).as(passed.reason()).isEqualTo(Status.PASS);
        }
    }

    @Test
    void c17PassesAgainstAServerThatOnlyRefusesAReplayBelowTheFloorAndC17PlusSaysItIsStricter() {
        try (ProtocolFake replayOnly = new ProtocolFake(new ProtocolFake.Behaviour(true, false));
                ProtocolFake both = new ProtocolFake(LIKE_OURS)) {
            Runner.Run lenient = run(replayOnly, "C17", "C17+");
            Runner.Run strict = run(both, "C17", "C17+");

            assertThat(lenient.results()).extracting(Result::id).containsExactly("C17", "C17+");
            assertThat(result(lenient, "C17").status())
                    .as(result(lenient, "C17").reason())
                    .isEqualTo(Status.PASS);
            assertThat(result(lenient, "C17").stricter()).isFalse();
            assertThat(result(lenient, "C17+").status()).isEqualTo(Status.FAIL);
            assertThat(result(lenient, "C17+").stricter()).isTrue();
            assertThat(result(lenient, "C17+").reason()).contains("→ 200", "expected 410 CURSOR_EXPIRED");
            assertThat(strict.results())
                    .allSatisfy(r -> assertThat(r.status())
                            .as(r.id() + ": " + r.reason())
                            .isEqualTo(Status.PASS));
        }
    }

    @Test
    void aFailingStricterCheckIsShownAsSuchAndTheRunStillExitsZero() {
        try (ProtocolFake replayOnly = new ProtocolFake(new ProtocolFake.Behaviour(true, false))) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();

            int exit = Conformance.run(
                    new String[] {"--base", replayOnly.base().toString(), "--admin-token", "a", "--only", "C17,C17+"},
                    new PrintStream(bytes, true, StandardCharsets.UTF_8),
                    Map.of());

            List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
            assertThat(exit).as(String.join("\n", lines)).isZero();
            assertThat(lines.get(0)).startsWith("C17  PASS ");
            assertThat(lines.get(1)).startsWith("C17+ FAIL [stricter than the protocol] ");
            assertThat(lines.get(2))
                    .contains(
                            "2 checks",
                            "1 passed, 1 failed",
                            "1 of them stricter than the protocol (C17+), 1 failed, which does not fail the run");
            assertThat(lines.get(3)).startsWith("cleanup: retired the 2 monitors and 2 subscriptions this run created");
        }
    }

    @Test
    void everyMonitorAndSubscriptionARunCreatesIsRetiredAfterwardsAlsoWhenChecksFail() {
        try (ProtocolFake silent = new ProtocolFake(new ProtocolFake.Behaviour(false, false))) {
            Runner.Run run = run(silent, "C08", "C17", "C17+");

            assertThat(run.results()).extracting(Result::status).containsExactly(Status.FAIL, Status.PASS, Status.FAIL);
            assertThat(silent.monitorsCreated()).isEqualTo(3);
            assertThat(silent.activeMonitors()).isZero();
            assertThat(silent.activeSubscriptions()).isZero();
            assertThat(run.cleanup().monitors()).isEqualTo(silent.monitorsCreated());
            assertThat(run.cleanup().subscriptions()).isEqualTo(silent.subscriptionsCreated());
            assertThat(run.cleanup().notRetired()).isEmpty();
        }
    }
}
