package io.monitorbackbone.protocol.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import org.junit.jupiter.api.Test;

class PublishTest {
    static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes());
    }

    @Test
    void everyFieldIsRead() {
        Publish p = Publish.parse(
                body("{\"type\":\"demo.note\",\"subject\":\"s\",\"actor\":\"agent:a\",\"on_behalf_of\":\"human:o\","
                        + "\"source_ref\":\"r\",\"rule\":\"x\",\"data\":{\"v\":1},\"tags\":{\"k\":\"v\"},\"time\":\"2026-01-01T00:00:00Z\","
                        + "\"tier\":\"measured\",\"origin\":\"agent\",\"verification\":\"reported\","
                        + "\"supersedes\":{\"source\":\"monitor:m\",\"id\":\"3\",\"extra\":1},\"wasDerivedFrom\":[{\"source\":\"monitor:m\",\"id\":\"2\"}],"
                        + "\"unknown\":true}"));

        assertThat(p.type()).isEqualTo("demo.note");
        assertThat(p.onBehalfOf()).isEqualTo("human:o");
        assertThat(p.sourceRef()).isEqualTo("r");
        assertThat(p.data().get("v").asInt()).isEqualTo(1);
        assertThat(p.supersedes().toString()).isEqualTo("{\"source\":\"monitor:m\",\"id\":\"3\"}");
        assertThat(p.wasDerivedFrom().toString()).isEqualTo("[{\"source\":\"monitor:m\",\"id\":\"2\"}]");
        assertThat(Publish.parse(p.toJson())).isEqualTo(p);
        assertThat(p.toJson().has("unknown")).isFalse();
    }

    @Test
    void absentFieldsStayAbsent() {
        Publish p = Publish.parse(body("{\"type\":\"demo.note\",\"subject\":null}"));

        assertThat(p.subject()).isNull();
        assertThat(p.data()).isNull();
        assertThat(p.supersedes()).isNull();
        assertThat(p.wasDerivedFrom()).isEmpty();
        assertThat(p.toJson().toString()).isEqualTo("{\"type\":\"demo.note\"}");
        assertThat(Publish.parse(p.toJson())).isEqualTo(p);
    }

    @Test
    void aFieldOfTheWrongTypeIsNamedBeforeAnyValueIsChecked() {
        // tier is read after the checks of subject, type and time, as it always was: the first mistake a reader meets.
        assertThatThrownBy(() ->
                        Publish.parse(body("{\"tier\":7,\"time\":\"yesterday\",\"type\":\"a.b\",\"rule\":false}")))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID);
                    assertThat(e.getMessage()).isEqualTo("rule must be a string");
                    assertThat(e.toJson().get("field").asText()).isEqualTo("rule");
                    assertThat(e.toJson().has("known")).isTrue();
                });
        assertThatThrownBy(() -> Publish.parse(body("{\"tier\":7,\"time\":\"yesterday\",\"type\":\"a.b\"}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class,
                        e -> assertThat(e.toJson().get("time").asText()).isEqualTo("yesterday"));
        assertThatThrownBy(() -> Publish.parse(body("{\"tier\":7,\"type\":\"a.b\"}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.getMessage()).isEqualTo("tier must be a string"));
    }

    @Test
    void theRefusalsCarryTheirExtras() {
        assertThatThrownBy(() -> Publish.parse(body(
                        "{\"type\":\"a.b\",\"subject\":\"" + "s".repeat(Vocabulary.MAX_SUBJECT_LENGTH + 1) + "\"}")))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID);
                    assertThat(e.toJson().get("limit").asInt()).isEqualTo(Vocabulary.MAX_SUBJECT_LENGTH);
                    assertThat(e.toJson().get("invalid")).isEmpty();
                });
        assertThatThrownBy(() -> Publish.parse(body("{\"type\":\"a.b\",\"wasDerivedFrom\":{}}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class,
                        e -> assertThat(e.toJson().get("field").asText()).isEqualTo("wasDerivedFrom"));
        assertThatThrownBy(() -> Publish.parse(body("{\"type\":\"Bad Type\",\"origin\":\"martian\"}")))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
                    assertThat(e.toJson().get("invalid").toString()).contains("origin:martian", "type:Bad Type");
                });
        assertThatThrownBy(() -> Publish.parse(body("{\"type\":\"ai.mentu.monitor.rejected\"}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROVENANCE_CEILING));
    }
}
