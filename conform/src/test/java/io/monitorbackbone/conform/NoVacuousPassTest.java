package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every check has a positive control: against a server that answers every request the same way, whether it refuses
 * everything or accepts everything without substance, no check passes.
 */
class NoVacuousPassTest {

    static List<FakeServer.Answer> answers() {
        String error = "{\"code\":\"%s\",\"error\":\"no\",\"done\":[]}";
        return List.of(
                new FakeServer.Answer(404, error.formatted("NOT_FOUND")),
                new FakeServer.Answer(401, error.formatted("UNAUTHORIZED")),
                new FakeServer.Answer(403, error.formatted("ORIGIN_REFUSED")),
                new FakeServer.Answer(400, error.formatted("INVALID")),
                new FakeServer.Answer(409, error.formatted("UNAVAILABLE")),
                new FakeServer.Answer(200, "{}"),
                new FakeServer.Answer(201, "{}"),
                new FakeServer.Answer(500, ""));
    }

    @ParameterizedTest
    @MethodSource("answers")
    void noCheckPassesAgainstAServerThatAlwaysAnswersTheSame(FakeServer.Answer answer) {
        try (FakeServer server = FakeServer.always(answer.status(), answer.body())) {
            Options options = Options.parse(
                    new String[] {"--base", server.base().toString(), "--admin-token", "a", "--registration-token", "r"
                    },
                    Map.of());

            List<Result> results = Runner.run(CheckList.all(), options, r -> {}).results();

            assertThat(results).hasSize(CheckList.all().size());
            assertThat(results)
                    .allSatisfy(r -> assertThat(r.status())
                            .as(r.id() + ": " + r.reason())
                            .isEqualTo(Status.FAIL));
        }
    }
}
