package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CreateMonitorTest {
    private static final String FULL = """
            {"id":"ci","name":"CI","description":"builds","owner":"human:alice",
             "source":{"kind":"shell","ref":"make test"},"filter":{"types":["com.example.ci.*"]},"horizon":"minute",
             "capabilities":["observe","act","observe"],"cadence":{"every_seconds":60},"ttl_seconds":3600,
             "retire_after_mute_seconds":60,"budget":{"max":3},"visibility":"shared",
             "rules":[{"id":"r1","then":"log"}],"types":["com.example.ci.run"],"default_grant":["observe"],
             "limits":{"retention_seconds":86400,"delivery_count_limit":3},"subscribe_token":true,
             "registration_token":"reg","rule":"r0","reason":"first"}""";

    @Test
    void aFullBodyIsReadFieldByField() {
        CreateMonitor r = CreateMonitor.parse(body(FULL));

        assertThat(r.id()).isEqualTo("ci");
        assertThat(r.name()).isEqualTo("CI");
        assertThat(r.owner()).isEqualTo("human:alice");
        assertThat(r.horizon()).isEqualTo("minute");
        assertThat(r.capabilities()).containsExactly("observe", "act");
        assertThat(r.ttlSeconds()).isEqualTo(3600L);
        assertThat(r.retireAfterMuteSeconds()).isEqualTo(60L);
        assertThat(r.visibility()).isEqualTo("shared");
        assertThat(r.rules().get(0).get("when")).isEqualTo(Json.object());
        assertThat(r.types()).containsExactly("com.example.ci.run");
        assertThat(r.retentionSeconds()).isEqualTo(86400L);
        assertThat(r.deliveryCountLimit()).isEqualTo(3);
        assertThat(r.subscribeToken()).isTrue();
        assertThat(r.registrationToken()).isEqualTo("reg");
        assertThat(r.rule()).isEqualTo("r0");
        assertThat(r.reason()).isEqualTo("first");
    }

    @Test
    void anEmptyBodyGetsTheDefaultsThatDoNotDependOnTheServer() {
        CreateMonitor r = CreateMonitor.parse(body("{}"));

        assertThat(r.id()).isNull();
        assertThat(r.name()).isNull();
        assertThat(r.owner()).isNull();
        assertThat(r.horizon()).isEqualTo("event");
        assertThat(r.visibility()).isEqualTo("private");
        assertThat(r.capabilities()).containsExactly("observe");
        assertThat(r.defaultGrant()).containsExactly("observe");
        assertThat(r.types()).isEmpty();
        assertThat(r.source()).isEqualTo(body("{\"kind\":\"log\",\"ref\":\"monitor-protocol://log\"}"));
        assertThat(r.filter()).isEqualTo(Json.object());
        assertThat(r.cadence()).isEqualTo(body("{\"event_driven\":true}"));
        assertThat(r.budget().isNull()).isTrue();
        assertThat(r.rules()).isEmpty();
        assertThat(r.subscribeToken()).isFalse();
    }

    @Test
    void theServerFillsInTheIdTheNameAndTheOwner() {
        Instant now = Instant.parse("2026-11-29T18:00:00Z");
        Monitor plain = MonitorDefinitions.create("m-1", CreateMonitor.parse(body("{}")), now, false)
                .monitor();
        Monitor attested = MonitorDefinitions.create("m-2", CreateMonitor.parse(body("{}")), now, true)
                .monitor();

        assertThat(plain.name()).isEqualTo("m-1");
        assertThat(plain.owner()).isEqualTo("agent:owner");
        assertThat(attested.owner()).isEqualTo("human:owner");
        assertThat(CreateMonitor.parse(body("{\"key\":\"k-1\"}")).id()).isEqualTo("k-1");
        assertThat(MonitorDefinitions.requestedId(body("{}"))).matches("mon-[0-9a-f]{6}");
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        for (String json : List.of(
                FULL,
                "{}",
                "{\"budget\":null,\"limits\":{\"retention_seconds\":5}}",
                "{\"limits\":{\"delivery_count_limit\":1}}")) {
            CreateMonitor r = CreateMonitor.parse(body(json));

            assertThat(CreateMonitor.parse(r.toJson())).isEqualTo(r);
        }
    }

    @Test
    void anIdHasItsShape() {
        refused(
                () -> CreateMonitor.parse(body("{\"id\":5}")),
                "{\"code\":\"INVALID\",\"error\":\"" + Vocabulary.MONITOR_ID_RULE + "\",\"done\":[],\"id\":5}");
        refused(
                () -> CreateMonitor.parse(body("{\"id\":\"bad id!\"}")),
                "{\"code\":\"INVALID\",\"error\":\"" + Vocabulary.MONITOR_ID_RULE
                        + "\",\"done\":[],\"id\":\"bad id!\"}");
        refused(
                () -> CreateMonitor.parse(body("{\"key\":\"..\"}")),
                "{\"code\":\"INVALID\",\"error\":\"" + Vocabulary.MONITOR_ID_RULE + "\",\"done\":[],\"id\":\"..\"}");
    }

    @Test
    void textFieldsMustBeStrings() {
        for (String field : List.of("owner", "name", "description", "horizon", "visibility")) {
            refused(
                    () -> CreateMonitor.parse(body("{\"" + field + "\":5}")),
                    "{\"code\":\"INVALID\",\"error\":\"" + field + " must be a string\",\"done\":[],\"field\":\""
                            + field + "\"}");
        }
    }

    @Test
    void listFieldsMustBeArraysOfStrings() {
        for (String field : List.of("capabilities", "default_grant", "types")) {
            refused(
                    () -> CreateMonitor.parse(body("{\"" + field + "\":[\"observe\",1]}")),
                    "{\"code\":\"INVALID\",\"error\":\"" + field
                            + " must be an array of strings\",\"done\":[],\"field\":\"" + field + "\"}");
        }
    }

    @Test
    void theSourceIsAnObjectWithAKnownKind() {
        refused(
                () -> CreateMonitor.parse(body("{\"source\":\"make\"}")),
                "{\"code\":\"INVALID\",\"error\":\"source must be an object {kind, ref, settings}\",\"done\":[]}");
        refused(
                () -> CreateMonitor.parse(body("{\"source\":{\"ref\":\"make\"}}")),
                "{\"code\":\"INVALID\",\"error\":\"source.kind is required when source is given\",\"done\":[]}");
    }

    @Test
    void unknownVocabularyIsNamedValueByValue() {
        assertThatThrownBy(() -> CreateMonitor.parse(body(
                        "{\"horizon\":\"eon\",\"visibility\":\"secret\",\"capabilities\":[\"fly\"],\"source\":{\"kind\":\"crystal\"},"
                                + "\"default_grant\":[\"swim\"]}")))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
                    assertThat(e.getMessage())
                            .isEqualTo("invalid values: horizon:eon, visibility:secret, capabilities:fly, "
                                    + "source.kind:crystal, default_grant:swim");
                    assertThat(e.details())
                            .containsEntry(
                                    "invalid",
                                    List.of(
                                            "horizon:eon",
                                            "visibility:secret",
                                            "capabilities:fly",
                                            "source.kind:crystal",
                                            "default_grant:swim"));
                    assertThat(e.toJson().get("known").get("horizon")).isEqualTo(Json.array(Vocabulary.HORIZONS));
                    assertThat(e.toJson().get("known").fieldNames())
                            .toIterable()
                            .containsExactly("horizon", "visibility", "capabilities", "source.kind", "default_grant");
                });
    }

    @Test
    void rulesTypesAndTheFilterAreChecked() {
        refused(
                () -> CreateMonitor.parse(body("{\"rules\":{}}")),
                "{\"code\":\"INVALID\",\"error\":\"rules must be an array of {id, when, then}\",\"done\":[]}");
        refused(
                () -> CreateMonitor.parse(body("{\"types\":[\"NotReverseDns\"]}")),
                "{\"code\":\"UNKNOWN_VOCABULARY\","
                        + "\"error\":\"declared types must be reverse-DNS: types:NotReverseDns\",\"done\":[],\"invalid\":[\"types:NotReverseDns\"]}");
        assertThatThrownBy(() -> CreateMonitor.parse(body("{\"filter\":{\"colour\":\"red\"}}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_FILTER));
    }

    @Test
    void theDefaultGrantIsASubsetOfTheCapabilities() {
        refused(
                () -> CreateMonitor.parse(
                        body("{\"id\":\"g-75719\",\"capabilities\":[\"observe\"],\"default_grant\":[\"act\"]}")),
                "{\"code\":\"UNKNOWN_VOCABULARY\",\"error\":\"default_grant must be a subset of capabilities: act\",\"done\":[],"
                        + "\"invalid\":[\"default_grant:act\"],\"capabilities\":[\"observe\"]}");
    }

    @Test
    void cadenceBudgetAndSecondsHaveTheirShapes() {
        refused(
                () -> CreateMonitor.parse(body("{\"cadence\":5}")),
                "{\"code\":\"INVALID\",\"error\":\"cadence must be an object\",\"done\":[]}");
        refused(
                () -> CreateMonitor.parse(body("{\"budget\":[]}")),
                "{\"code\":\"INVALID\",\"error\":\"budget must be an object or null\",\"done\":[]}");
        for (String field : List.of("ttl_seconds", "retire_after_mute_seconds")) {
            for (String value : List.of("-1", "1.5", "\"60\"")) {
                refused(
                        () -> CreateMonitor.parse(body("{\"" + field + "\":" + value + "}")),
                        "{\"code\":\"INVALID\",\"error\":\"" + field
                                + " must be a non-negative integer\",\"done\":[],\"field\":\"" + field + "\"}");
            }
        }
    }

    @Test
    void limitsHaveTheirShapes() {
        refused(
                () -> CreateMonitor.parse(body("{\"limits\":7}")),
                "{\"code\":\"INVALID\","
                        + "\"error\":\"limits must be an object such as {\\\"retention_seconds\\\": 86400}\",\"done\":[]}");
        for (String value : List.of("0", "-1", "1.5", "\"86400\"", "9223372036854776")) {
            refused(
                    () -> CreateMonitor.parse(body("{\"limits\":{\"retention_seconds\":" + value + "}}")),
                    "{\"code\":\"INVALID\",\"error\":\"limits.retention_seconds must be a positive integer\",\"done\":[],"
                            + "\"field\":\"limits.retention_seconds\"}");
        }
        for (String value : List.of("0", "1001", "2.5", "\"3\"")) {
            refused(
                    () -> CreateMonitor.parse(body("{\"limits\":{\"delivery_count_limit\":" + value + "}}")),
                    "{\"code\":\"INVALID\",\"error\":\"limits.delivery_count_limit must be an integer from 1 to 1000\","
                            + "\"done\":[],\"field\":\"limits.delivery_count_limit\"}");
        }
    }

    @Test
    void aBodyWithSeveralFaultsGetsTheFirstInTheOrderOfChecks() {
        refused(
                () -> CreateMonitor.parse(body("{\"id\":\"bad id!\",\"owner\":5}")),
                "{\"code\":\"INVALID\",\"error\":\"" + Vocabulary.MONITOR_ID_RULE
                        + "\",\"done\":[],\"id\":\"bad id!\"}");
        refused(
                () -> CreateMonitor.parse(body("{\"ttl_seconds\":-1,\"cadence\":5}")),
                "{\"code\":\"INVALID\",\"error\":\"cadence must be an object\",\"done\":[]}");
    }
}
