package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubscribeTest {
    @Test
    void aBodyIsReadFieldByField() {
        Subscribe r = Subscribe.parse(body("""
                {"monitor":"w-1","subscriber":"agent:reader@1","capabilities":["observe","act"],"protocol":"mcp",
                 "reset_policy":"latest","filter":{"types":["demo.*"]},"retire_after_mute_seconds":60,"from":"head",
                 "sink":"https://example.com/hook"}"""));

        assertThat(r)
                .isEqualTo(new Subscribe(
                        "w-1",
                        "agent:reader@1",
                        List.of("observe", "act"),
                        "mcp",
                        "latest",
                        body("{\"types\":[\"demo.*\"]}"),
                        60L,
                        Subscribe.From.HEAD,
                        "https://example.com/hook"));
    }

    @Test
    void anOmittedFieldGetsItsDefault() {
        Subscribe r = Subscribe.parse(body("{\"monitor\":\"w-1\",\"subscriber\":\"agent:tail\",\"filter\":null}"));

        assertThat(r)
                .isEqualTo(new Subscribe(
                        "w-1", "agent:tail", List.of("observe"), "pull", "none", Json.object(), null, null, null));
    }

    @Test
    void fromIsHeadEarliestOrASeq() {
        assertThat(Subscribe.parse(body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"from\":\"earliest\"}"))
                        .from())
                .isEqualTo(Subscribe.From.EARLIEST);
        assertThat(Subscribe.parse(body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"from\":7}"))
                        .from())
                .isEqualTo(Subscribe.From.at(7));
        for (String from : List.of(
                "\"tail\"", "-1", "1.5", "\"7\"", "{}", "{\"seq\":3}", "{\"time\":\"2026-12-01T19:30:00Z\",\"x\":1}")) {
            refused(
                    () -> Subscribe.parse(body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"from\":" + from + "}")),
                    "{\"code\":\"INVALID\",\"error\":\"`from` must be 'head', 'earliest', a non-negative integer or "
                            + "{\\\"time\\\": an RFC 3339 date-time}\",\"done\":[],\"from\":" + from + "}");
        }
    }

    @Test
    void fromMayBeATimeWithAZone() {
        assertThat(Subscribe.parse(
                                body(
                                        "{\"monitor\":\"w\",\"subscriber\":\"a\",\"from\":{\"time\":\"2026-12-01T20:30:00.250+01:00\"}}"))
                        .from())
                .isEqualTo(Subscribe.From.at(Instant.parse("2026-12-01T19:30:00.250Z")));
        for (String time : List.of(
                "\"2026-12-01 19:30:00\"", "\"2026-12-01T19:30:00\"", "\"yesterday\"", "1733081400000", "null")) {
            refused(
                    () -> Subscribe.parse(
                            body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"from\":{\"time\":" + time + "}}")),
                    "{\"code\":\"INVALID\",\"error\":\"from.time must be an RFC 3339 date-time with a zone, e.g. "
                            + "2026-12-01T19:30:00Z\",\"done\":[],\"field\":\"from.time\",\"time\":" + time + "}");
        }
    }

    @Test
    void aStartByTimeRoundTripsThroughItsJson() {
        Subscribe r = Subscribe.parse(
                body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"from\":{\"time\":\"2026-12-01T19:30:00.000123Z\"}}"));

        assertThat(Subscribe.parse(r.toJson())).isEqualTo(r);
    }

    @Test
    void theMonitorAndTheSubscriberAreRequired() {
        refused(
                () -> Subscribe.parse(body("{\"subscriber\":\"agent:a\"}")),
                "{\"code\":\"INVALID\",\"error\":\"monitor is required\",\"done\":[]}");
        for (String subscriber : List.of("", ",\"subscriber\":null", ",\"subscriber\":\"  \"")) {
            refused(
                    () -> Subscribe.parse(body("{\"monitor\":\"w\"" + subscriber + "}")),
                    "{\"code\":\"INVALID\",\"error\":\"subscriber is required (an actor such as agent:name)\",\"done\":[]}");
        }
    }

    @Test
    void capabilitiesProtocolAndResetPolicyAreVocabulary() {
        refused(
                () -> Subscribe.parse(body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"capabilities\":\"act\"}")),
                "{\"code\":\"INVALID\",\"error\":\"capabilities must be an array of strings\",\"done\":[],\"field\":\"capabilities\"}");
        assertThatThrownBy(
                        () -> Subscribe.parse(
                                body(
                                        "{\"monitor\":\"w\",\"subscriber\":\"a\",\"capabilities\":[\"fly\"],\"protocol\":\"smoke\",\"reset_policy\":\"never\"}")))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
                    assertThat(e.getMessage())
                            .isEqualTo("invalid values: capabilities:fly, protocol:smoke, reset_policy:never");
                    assertThat(e.toJson().get("known").fieldNames())
                            .toIterable()
                            .containsExactly("capabilities", "protocol", "reset_policy");
                });
    }

    @Test
    void theMuteTimeIsANonNegativeInteger() {
        refused(
                () -> Subscribe.parse(
                        body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"retire_after_mute_seconds\":-5}")),
                "{\"code\":\"INVALID\",\"error\":\"retire_after_mute_seconds must be a non-negative integer\",\"done\":[],"
                        + "\"field\":\"retire_after_mute_seconds\"}");
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        for (String from : List.of("", ",\"from\":\"head\"", ",\"from\":\"earliest\"", ",\"from\":0", ",\"from\":12")) {
            Subscribe r =
                    Subscribe.parse(body("{\"monitor\":\"w\",\"subscriber\":\"a\",\"filter\":{\"subjects\":[\"s\"]},"
                            + "\"retire_after_mute_seconds\":0,\"sink\":\"x\"" + from + "}"));

            assertThat(Subscribe.parse(r.toJson())).isEqualTo(r);
        }
    }
}
