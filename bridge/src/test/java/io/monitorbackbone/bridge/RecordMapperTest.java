package io.monitorbackbone.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.request.KafkaSource;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class RecordMapperTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final long TIMESTAMP = Instant.parse("2026-11-30T08:00:00Z").toEpochMilli();

    private static Monitor monitor(String types, String settings) {
        ObjectNode body = (ObjectNode) Json.read(("{\"id\":\"orders\",\"types\":" + types
                        + ",\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:orders\",\"settings\":" + settings + "}}")
                .getBytes(StandardCharsets.UTF_8));
        return MonitorDefinitions.create("orders", body, NOW, false).monitor();
    }

    private static RecordMapper.Outcome map(Monitor m, ConsumerRecord<byte[], byte[]> r) {
        return RecordMapper.map(m, KafkaSource.of(m.source(), m.types()), r, NOW);
    }

    private static ConsumerRecord<byte[], byte[]> record(String key, byte[] value, RecordHeaders headers) {
        return new ConsumerRecord<>(
                "orders",
                2,
                41,
                TIMESTAMP,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value,
                headers,
                Optional.empty());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void plainJsonIsMappedWithItsProvenance() {
        Monitor m = monitor(
                "[\"com.example.order\",\"com.example.refund\"]",
                "{\"format\":\"json\",\"type\":\"/kind\",\"tags\":[\"region\",\"blob\",\"none\"]}");
        RecordHeaders headers = new RecordHeaders();
        headers.add("region", utf8("eu"));
        headers.add("blob", new byte[] {(byte) 0xff, 0});
        headers.add("none", null);
        RecordMapper.Outcome out =
                map(m, record("o-1", utf8("{\"kind\":\"com.example.order\",\"total\":12}"), headers));

        assertThat(out).isInstanceOf(RecordMapper.Observation.class);
        assertThat(out.eventId()).isEqualTo("kafka:orders/2/41");
        var draft = ((RecordMapper.Observation) out).draft();
        assertThat(draft.type()).isEqualTo("com.example.order");
        assertThat(draft.subject()).isEqualTo("o-1");
        assertThat(draft.time()).isEqualTo("2026-11-30T08:00:00.000Z");
        assertThat(draft.actor()).isEqualTo("probe:kafka/orders");
        assertThat(draft.origin()).isEqualTo("probe");
        assertThat(draft.tier()).isEqualTo("measured");
        JsonNode data = draft.data();
        assertThat(data.get("total").asInt()).isEqualTo(12);
        assertThat(data.at("/provenance/source_ref").asText()).isEqualTo("kafka:orders/2/41");
        assertThat(data.at("/tags/region").asText()).isEqualTo("eu");
        assertThat(data.at("/tags/blob").asText()).isEqualTo("base64:/wA=");
        assertThat(data.at("/tags").has("none")).isFalse();
    }

    @Test
    void cloudEventsInBinaryModeKeepTypeSubjectTimeAndId() {
        Monitor m = monitor("[\"com.example.order\"]", "{}");
        RecordHeaders h = new RecordHeaders();
        h.add("ce_specversion", utf8("1.0"));
        h.add("ce_id", utf8("evt-7"));
        h.add("ce_source", utf8("/shop"));
        h.add("ce_type", utf8("com.example.order"));
        h.add("ce_subject", utf8("o-9"));
        h.add("ce_time", utf8("2026-11-01T10:00:00Z"));
        h.add("content-type", utf8("application/json"));
        RecordMapper.Outcome out = map(m, record("k", utf8("{\"total\":3}"), h));

        var draft = ((RecordMapper.Observation) out).draft();
        assertThat(draft.type()).isEqualTo("com.example.order");
        assertThat(draft.subject()).isEqualTo("o-9");
        assertThat(draft.time()).isEqualTo("2026-11-01T10:00:00Z");
        assertThat(draft.data().at("/provenance/wasDerivedFrom/0/id").asText()).isEqualTo("evt-7");
        assertThat(draft.data().at("/provenance/wasDerivedFrom/0/source").asText())
                .isEqualTo("/shop");
        assertThat(draft.data().get("total").asInt()).isEqualTo(3);
    }

    @Test
    void cloudEventsInStructuredModeKeepTypeSubjectTimeAndId() {
        Monitor m = monitor("[\"com.example.order\"]", "{\"format\":\"cloudevents-structured\"}");
        RecordMapper.Outcome out = map(
                m,
                record(
                        null,
                        utf8(
                                "{\"specversion\":\"1.0\",\"id\":\"evt-8\",\"source\":\"/shop\",\"type\":\"com.example.order\","
                                        + "\"subject\":\"o-10\",\"time\":\"2026-11-02T10:00:00Z\",\"data\":{\"total\":4}}"),
                        new RecordHeaders()));

        var draft = ((RecordMapper.Observation) out).draft();
        assertThat(draft.subject()).isEqualTo("o-10");
        assertThat(draft.time()).isEqualTo("2026-11-02T10:00:00Z");
        assertThat(draft.data().at("/provenance/wasDerivedFrom/0/id").asText()).isEqualTo("evt-8");
        assertThat(draft.data().get("total").asInt()).isEqualTo(4);
    }

    @Test
    void keysAndHeadersBeyondAsciiAreTheirUtf8Text() {
        Monitor m = monitor("[\"com.example.order\"]", "{\"format\":\"json\",\"tags\":[\"city\",\"plain\"]}");
        RecordHeaders headers = new RecordHeaders();
        headers.add("city", utf8("Zürich 東京"));
        headers.add("plain", utf8("ascii only"));
        var draft = ((RecordMapper.Observation) map(m, record("ö-1", utf8("{\"total\":1}"), headers))).draft();

        assertThat(draft.subject()).isEqualTo("ö-1");
        assertThat(draft.data().at("/tags/city").asText()).isEqualTo("Zürich 東京");
        assertThat(draft.data().at("/tags/plain").asText()).isEqualTo("ascii only");
    }

    @Test
    void aSrcClaimIsARejectedRowWithTheRawValue() {
        Monitor m = monitor("[\"com.example.order\"]", "{\"format\":\"json\"}");
        RecordHeaders h = new RecordHeaders();
        h.add("ce_tier", utf8("src"));
        RecordMapper.Outcome out = map(m, record("o-1", utf8("{\"total\":1}"), h));

        assertThat(out).isInstanceOf(RecordMapper.Refused.class);
        JsonNode payload = ((RecordMapper.Refused) out).row().data().get("payload");
        assertThat(payload.get("code").asText()).isEqualTo("TIER_NOT_ASSERTABLE");
        assertThat(payload.get("raw").toString())
                .as("the value as the record had it, untouched by the observation it would have been")
                .isEqualTo("{\"total\":1}");
        assertThat(payload.get("source_ref").asText()).isEqualTo("kafka:orders/2/41");
        assertThat(out.eventId()).isEqualTo("kafka:orders/2/41");
    }

    @Test
    void aTypeTheMonitorDoesNotDeclareIsRejected() {
        Monitor m = monitor("[\"com.example.order\"]", "{\"format\":\"json\",\"type\":\"/kind\"}");
        RecordMapper.Outcome out = map(m, record("o-1", utf8("{\"kind\":\"com.example.other\"}"), new RecordHeaders()));
        assertThat(out).isInstanceOf(RecordMapper.Refused.class);
        assertThat(((RecordMapper.Refused) out).row().data().at("/payload/code").asText())
                .isEqualTo("UNKNOWN_VOCABULARY");
    }

    @Test
    void bytesThatAreNotJsonAreADeadLetter() {
        Monitor m = monitor("[\"com.example.order\"]", "{\"format\":\"json\"}");
        RecordMapper.Outcome out = map(m, record("o-1", new byte[] {(byte) 0xc3, 0x28, 0x7b}, new RecordHeaders()));
        assertThat(out).isInstanceOf(RecordMapper.DeadLetter.class);
        assertThat(((RecordMapper.DeadLetter) out).error()).contains("not JSON");
    }

    @Test
    void jsonAPublishCouldNotBeIsRejectedWhileWhatIsNotJsonAtAllIsADeadLetter() {
        // The mapper parses strictly first and leniently only when that fails: the verdicts must stay these.
        Monitor m = monitor("[\"com.example.order\"]", "{\"format\":\"json\"}");
        RecordMapper.Outcome twice = map(m, record("o-1", utf8("{\"a\":1,\"a\":2}"), new RecordHeaders()));
        assertThat(twice).isInstanceOf(RecordMapper.Refused.class);
        assertThat(((RecordMapper.Refused) twice)
                        .row()
                        .data()
                        .at("/payload/code")
                        .asText())
                .isEqualTo("INVALID");
        String deep = "[".repeat(Json.MAX_INPUT_NESTING + 5) + "]".repeat(Json.MAX_INPUT_NESTING + 5);
        assertThat(map(m, record("o-1", utf8(deep), new RecordHeaders()))).isInstanceOf(RecordMapper.Refused.class);
        assertThat(map(m, record("o-1", utf8("{} trailing"), new RecordHeaders())))
                .isInstanceOf(RecordMapper.Refused.class);
        for (String notJson : new String[] {"", "   ", "{\"a\":"}) {
            RecordMapper.Outcome out = map(m, record("o-1", utf8(notJson), new RecordHeaders()));
            assertThat(out).as("'%s'", notJson).isInstanceOf(RecordMapper.DeadLetter.class);
        }
        assertThat(map(m, record("o-1", utf8("{\"n\":1}"), new RecordHeaders())))
                .isInstanceOf(RecordMapper.Observation.class);
    }

    @Test
    void textIsKeptAsText() {
        Monitor m = monitor("[\"com.example.line\"]", "{\"format\":\"text\"}");
        RecordMapper.Outcome out = map(m, record("host-1", utf8("disk full"), new RecordHeaders()));
        var draft = ((RecordMapper.Observation) out).draft();
        assertThat(draft.type()).isEqualTo("com.example.line");
        assertThat(draft.data().get("text").asText()).isEqualTo("disk full");
        assertThat(map(m, record("host-1", new byte[] {(byte) 0xff}, new RecordHeaders())))
                .isInstanceOf(RecordMapper.DeadLetter.class);
    }

    @Test
    void autoReadsEachValueAsTheFormatItIs() {
        // auto parses a value once to choose its format, and the chosen format reads that parse: each outcome must be
        // the one the format named outright gives.
        Monitor auto = monitor("[\"com.example.order\"]", "{\"format\":\"auto\"}");
        Monitor json = monitor("[\"com.example.order\"]", "{\"format\":\"json\"}");
        Monitor structured = monitor("[\"com.example.order\"]", "{\"format\":\"cloudevents-structured\"}");
        String event = "{\"specversion\":\"1.0\",\"id\":\"evt-8\",\"source\":\"/shop\",\"type\":\"com.example.order\","
                + "\"subject\":\"o-10\",\"data\":{\"total\":4}}";
        String deep = "[".repeat(Json.MAX_INPUT_NESTING + 5) + "]".repeat(Json.MAX_INPUT_NESTING + 5);
        for (String value : new String[] {"{\"total\":1}", "[1,2]", "7", "{\"a\":1,\"a\":2}", deep, "{\"a\":", ""}) {
            RecordMapper.Outcome byAuto = map(auto, record("o-1", utf8(value), new RecordHeaders()));
            assertThat(byAuto).as("'%s'", value).isEqualTo(map(json, record("o-1", utf8(value), new RecordHeaders())));
        }
        RecordMapper.Outcome byAuto = map(auto, record(null, utf8(event), new RecordHeaders()));
        assertThat(byAuto).isEqualTo(map(structured, record(null, utf8(event), new RecordHeaders())));
        assertThat(((RecordMapper.Observation) byAuto).draft().subject()).isEqualTo("o-10");
    }
}
