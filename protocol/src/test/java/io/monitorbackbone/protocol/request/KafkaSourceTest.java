package io.monitorbackbone.protocol.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class KafkaSourceTest {

    private static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    private static ObjectNode create(String settings) {
        return body("{\"id\":\"orders\",\"types\":[\"com.example.order\"],\"source\":{\"kind\":\"feed\","
                + "\"ref\":\"kafka:orders\",\"settings\":" + settings + "}}");
    }

    private static ErrorCode refusal(String settings) {
        try {
            CreateMonitor.parse(create(settings));
        } catch (ProtocolException e) {
            return e.code();
        }
        throw new AssertionError("accepted: " + settings);
    }

    @Test
    void aCreateStoresTheSettingsWithEveryDefault() {
        JsonNode source = CreateMonitor.parse(create("{}")).source();
        assertThat(source.get("ref").asText()).isEqualTo("kafka:orders");
        JsonNode s = source.get("settings");
        assertThat(s.get("format").asText()).isEqualTo("auto");
        assertThat(s.get("actor").asText()).isEqualTo("probe:kafka/orders");
        assertThat(s.get("start").asText()).isEqualTo("earliest");
        assertThat(s.get("type").isNull()).isTrue();
        assertThat(s.get("tags")).isEmpty();
        KafkaSource parsed = KafkaSource.of(source, List.of("com.example.order"));
        assertThat(parsed.topic()).isEqualTo("orders");
        assertThat(KafkaSource.parse(parsed.toJson(), List.of("com.example.order")))
                .isEqualTo(parsed);
    }

    @Test
    void mappingsReadBack() {
        KafkaSource s = KafkaSource.parse(
                create("{\"format\":\"json\",\"type\":\"/kind\",\"subject\":\"header:order-id\",\"time\":\"timestamp\","
                                + "\"tags\":[\"region\"],\"start\":\"2026-01-01T00:00:00Z\"}")
                        .get("source"),
                List.of("com.example.order", "com.example.refund"));
        assertThat(s.type()).isEqualTo(new KafkaSource.Mapping(KafkaSource.From.POINTER, "/kind"));
        assertThat(s.subject()).isEqualTo(new KafkaSource.Mapping(KafkaSource.From.HEADER, "order-id"));
        assertThat(s.time().from()).isEqualTo(KafkaSource.From.TIMESTAMP);
        assertThat(s.startTime()).isNotNull();
        assertThat(s.tags()).containsExactly("region");
    }

    @Test
    void badSettingsAreRefusedWithProtocolErrors() {
        assertThat(refusal("{\"colour\":\"red\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"format\":\"xml\"}")).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
        assertThat(refusal("{\"tier\":\"src\"}")).isEqualTo(ErrorCode.TIER_NOT_ASSERTABLE);
        assertThat(refusal("{\"origin\":\"human\"}")).isEqualTo(ErrorCode.PROVENANCE_CEILING);
        assertThat(refusal("{\"actor\":\"human:alice\"}")).isEqualTo(ErrorCode.PROVENANCE_CEILING);
        assertThat(refusal("{\"verification\":\"certified\"}")).isEqualTo(ErrorCode.PROVENANCE_CEILING);
        assertThat(refusal("{\"format\":\"json\",\"type\":\"ce:type\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"format\":\"text\",\"type\":\"/kind\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"type\":\"const:com.example.other\"}")).isEqualTo(ErrorCode.UNKNOWN_VOCABULARY);
        assertThat(refusal("{\"time\":\"key\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"start\":\"yesterday\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"tags\":\"region\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"format\":5}")).isEqualTo(ErrorCode.INVALID);
        assertThatThrownBy(() -> CreateMonitor.parse(
                        body("{\"id\":\"x1\",\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:mp.obs.x1\"}}")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("server's own topics");
        assertThatThrownBy(() -> CreateMonitor.parse(
                        body("{\"id\":\"x1\",\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:a topic\"}}")))
                .isInstanceOf(ProtocolException.class);
    }

    @Test
    void jsonWithoutATypeNeedsExactlyOneDeclaredType() {
        assertThat(CreateMonitor.parse(create("{\"format\":\"json\"}")).source())
                .isNotNull();
        assertThatThrownBy(() -> CreateMonitor.parse(
                        body("{\"id\":\"x1\",\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:orders\","
                                + "\"settings\":{\"format\":\"json\"}}}")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("source.settings.type is required");
    }

    @Test
    void otherFeedsAreLeftAsTheyAre() {
        JsonNode source = CreateMonitor.parse(body("{\"source\":{\"kind\":\"feed\",\"ref\":\"rss:x\"}}"))
                .source();
        assertThat(source.has("settings")).isFalse();
        assertThat(KafkaSource.of(source, List.of())).isNull();
    }
}
