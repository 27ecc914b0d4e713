package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Answers are checked against the normative schemas by route and status before any check sees them. */
class WireTest {
    private static final String MONITOR = """
            {"id":"m-1","name":"m","owner":"human:a","source":{"kind":"log"},"filter":{},"horizon":"event",
             "capabilities":["observe"],"visibility":"public","attested":false,"default_grant":["observe"],"version":1,
             "created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z","active":true,"head":1}""";

    @Test
    void aValidMonitorIsCounted() {
        try (FakeServer server = FakeServer.always(200, MONITOR)) {
            Wire wire = new Wire(server.base());

            Wire.Reply r = wire.get("/monitors/m-1", null);

            assertThat(r.status()).isEqualTo(200);
            assertThat(wire.validated()).containsEntry("monitor", 1);
        }
    }

    @Test
    void aMonitorOutsideTheVocabularyIsASchemaViolation() {
        try (FakeServer server = FakeServer.always(200, MONITOR.replace("\"event\"", "\"decade\""))) {
            Wire wire = new Wire(server.base());

            assertThatThrownBy(() -> wire.get("/monitors/m-1", null))
                    .isInstanceOf(Wire.SchemaViolation.class)
                    .hasMessageContaining("invalid monitor")
                    .hasMessageContaining("horizon");
        }
    }

    @Test
    void aTimestampThatIsNotADateTimeIsASchemaViolation() {
        try (FakeServer server =
                FakeServer.always(200, MONITOR.replace("2026-01-01T00:00:00Z\",\"active", "yesterday\",\"active"))) {
            assertThatThrownBy(() -> new Wire(server.base()).get("/monitors/m-1", null))
                    .isInstanceOf(Wire.SchemaViolation.class);
        }
    }

    @Test
    void aCreateAnswerWithoutItsMonitorIsASchemaViolation() {
        try (FakeServer server = FakeServer.always(201, "{\"owner_token\":\"t\"}")) {
            assertThatThrownBy(() -> new Wire(server.base()).post("/monitors", J.o(), null))
                    .isInstanceOf(Wire.SchemaViolation.class)
                    .hasMessageContaining("no monitor at /monitor");
        }
    }

    @Test
    void everyPulledObservationIsChecked() {
        String pulled = "{\"observations\":[{\"specversion\":\"0.3\"}]}";
        try (FakeServer server = FakeServer.always(200, pulled)) {
            assertThatThrownBy(() -> new Wire(server.base()).get("/subscriptions/s/pull?limit=1", "t"))
                    .isInstanceOf(Wire.SchemaViolation.class)
                    .hasMessageContaining("invalid observation");
        }
    }

    @Test
    void anErrorMustBeAnErrorObjectWithAKnownCode() {
        try (FakeServer unknownCode = FakeServer.always(409, "{\"code\":\"TEAPOT\",\"error\":\"x\"}");
                FakeServer notJson = FakeServer.always(404, "<html>not found</html>");
                FakeServer valid = FakeServer.always(404, "{\"code\":\"NOT_FOUND\",\"error\":\"x\",\"done\":[]}")) {
            assertThatThrownBy(() -> new Wire(unknownCode.base()).get("/discover", null))
                    .isInstanceOf(Wire.SchemaViolation.class);
            assertThatThrownBy(() -> new Wire(notJson.base()).get("/discover", null))
                    .isInstanceOf(Wire.SchemaViolation.class)
                    .hasMessageContaining("not JSON");
            Wire.Reply ok = new Wire(valid.base()).get("/nothing", null);
            assertThat(ok.code()).isEqualTo("NOT_FOUND");
            assertThat(ok.describe()).isEqualTo("GET /mp/v0/nothing → 404 NOT_FOUND (x)");
        }
    }
}
