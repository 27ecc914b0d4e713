package io.monitorbackbone.testsupport;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

// The schemas under src/test/resources are copies for this test; other modules get the real ones from protocol.
class SchemasTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void acceptsAMinimalErrorBody() {
        assertThatCode(() ->
                        Schemas.assertValid("error", json("{\"code\":\"NOT_FOUND\",\"error\":\"no such monitor\"}")))
                .doesNotThrowAnyException();
    }

    @Test
    void refusesAnErrorWithoutCodeAndShowsTheJson() {
        assertThatThrownBy(() -> Schemas.assertValid("error", json("{\"error\":\"x\"}")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("code")
                .hasMessageContaining("\"error\" : \"x\"");
    }

    @Test
    void refusesAnObservationWithA19DigitSequence() {
        ObjectNode observation = observation();
        assertThatCode(() -> Schemas.assertValid("observation", observation)).doesNotThrowAnyException();

        assertThatThrownBy(() -> Schemas.assertValid("observation", observation.put("sequence", "1234567890123456789")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("sequence");
    }

    @Test
    void checksDateTimeFormats() {
        assertThatThrownBy(
                        () -> Schemas.assertValid("observation", observation().put("time", "2026-13-01 25:00")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("time");
    }

    @Test
    void followsReferencesToOtherSchemasOnTheClasspath() {
        ObjectNode subscription = (ObjectNode) json("""
                {"id":"s1","monitor":"m1","subscriber":"agent:a","capabilities":["observe"],"cursor":0,
                 "protocol":"pull","active":true,"filter":{"types":["build.finished"]}}""");
        assertThatCode(() -> Schemas.assertValid("subscription", subscription)).doesNotThrowAnyException();

        // filter.json closes its properties; only the referenced schema knows that.
        subscription.putObject("filter").put("colour", "red");
        assertThatThrownBy(() -> Schemas.assertValid("subscription", subscription))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("colour");
    }

    @Test
    void namesAMissingSchema() {
        assertThatThrownBy(() -> Schemas.assertValid("nonesuch", json("{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mp/schemas/nonesuch.json");
    }

    private static ObjectNode observation() {
        return (ObjectNode) json("""
                {"specversion":"1.0","id":"o1","source":"monitor:m1","type":"build.finished",
                 "time":"2026-01-02T03:04:05Z","sequence":"00000000000000000042",
                 "tier":"measured","origin":"probe","verified":"machine_verified","horizon":"event","actor":"system:ci",
                 "data":{"provenance":{"origin":"probe","tier":"measured","verification":"machine_verified","actor":"system:ci"}}}""");
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }
}
