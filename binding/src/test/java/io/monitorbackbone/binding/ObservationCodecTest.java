package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import io.monitorbackbone.protocol.Vocabulary;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class ObservationCodecTest {

    @Test
    void aDraftRoundTripsThroughBinaryMode() {
        Draft draft = new Draft(
                "demo.note",
                "build-1",
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:ci",
                (com.fasterxml.jackson.databind.node.ObjectNode) Json.read("{\"ok\":true,\"tags\":{}}".getBytes()));

        ProducerRecord<String, byte[]> record = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        Draft back = ObservationCodec.decode(record.headers(), record.value(), 0);

        assertThat(back).isEqualTo(draft);
        assertThat(record.key()).isEqualTo("build-1");
        assertThat(new String(record.headers().lastHeader("ce_source").value(), StandardCharsets.UTF_8))
                .isEqualTo("monitor:w");
        assertThat(new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8))
                .isEqualTo("id-1");
        assertThat(new String(record.headers().lastHeader("ce_actor").value(), StandardCharsets.UTF_8))
                .isEqualTo("probe:ci");
    }

    @Test
    void aRecordThatCannotBeDecodedComesBackAsAnUndecodableRow() {
        Draft draft = new Draft(
                "demo.note",
                "build-1",
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:ci",
                Json.object());
        ProducerRecord<String, byte[]> record = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        int depth = Json.MAX_READ_NESTING + 5;
        byte[] tooDeep = ("{\"k\":" + "[".repeat(depth) + "]".repeat(depth) + "}").getBytes(StandardCharsets.UTF_8);
        byte[] notJson = "not json".getBytes(StandardCharsets.UTF_8);

        for (byte[] value : java.util.List.of(tooDeep, notJson)) {
            Draft back = ObservationCodec.decode("w", record.headers(), value, 1_764_439_200_000L);
            assertThat(back.type()).isEqualTo(Vocabulary.UNDECODABLE);
            assertThat(back.subject()).isNull();
            assertThat(back.time()).isEqualTo("2025-11-29T18:00:00.000Z");
            assertThat(back.origin()).isEqualTo("system");
            assertThat(back.data().at("/payload/bytes").asInt()).isEqualTo(value.length);
            assertThat(back.data().at("/payload/reason").asText()).isNotBlank();
            assertThat(back.data().at("/tags/monitor").asText()).isEqualTo("w");
            // Every reader builds the same row from the same record.
            assertThat(ObservationCodec.decode(record.headers(), value, 1_764_439_200_000L))
                    .isEqualTo(back);
        }
        org.apache.kafka.common.header.internals.RecordHeaders none =
                new org.apache.kafka.common.header.internals.RecordHeaders();
        assertThat(ObservationCodec.decode("w", none, new byte[] {1, 2, 3}, 0).type())
                .isEqualTo(Vocabulary.UNDECODABLE);
    }

    static Draft sample(String subject, String time, String data) {
        return new Draft(
                "demo.note",
                subject,
                time,
                "measured",
                "probe",
                "machine_verified",
                "minute",
                "probe:ci",
                (com.fasterxml.jackson.databind.node.ObjectNode) Json.read(data.getBytes(StandardCharsets.UTF_8)));
    }

    private static java.util.Map<String, String> headerMap(org.apache.kafka.common.header.Headers headers) {
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (org.apache.kafka.common.header.Header h : headers) {
            assertThat(out.put(h.key(), new String(h.value(), StandardCharsets.UTF_8)))
                    .as("header %s written once", h.key())
                    .isNull();
        }
        return out;
    }

    @Test
    void theDirectEncodingWritesWhatTheSdkWrote() {
        java.util.List<Draft> drafts = java.util.List.of(
                sample("build-1", "2026-11-29T18:00:00.000Z", "{\"ok\":true,\"tags\":{}}"),
                sample(null, "2026-11-29T18:00:00.123Z", "{}"),
                sample("päckchen/✓", "1999-01-01T00:00:00.000Z", "{\"text\":\"é\",\"n\":[1,2.5,null]}"),
                sample("s", "2026-11-29T18:00:00.120Z", "{}"),
                sample("s", "2026-11-29T18:00:00.100Z", "{}"),
                sample("s", "1969-12-31T23:59:59.999Z", "{}"),
                sample("s", "0000-01-01T00:00:00.010Z", "{}"),
                sample("s", "+10000-01-01T00:00:00.010Z", "{}"),
                sample("s", "2026-11-29T19:00:00.5+01:00", "{}"));
        for (Draft draft : drafts) {
            ProducerRecord<String, byte[]> direct = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
            ProducerRecord<String, byte[]> sdk = ObservationCodec.encodeWithSdk("mp.obs.w", "w", "id-1", draft);
            assertThat(headerMap(direct.headers())).isEqualTo(headerMap(sdk.headers()));
            assertThat(direct.value()).isEqualTo(sdk.value());
            assertThat(direct.key()).isEqualTo(sdk.key());
            assertThat(direct.topic()).isEqualTo(sdk.topic());
            assertThat(direct.partition()).isEqualTo(sdk.partition());
            assertThat(direct.timestamp()).isEqualTo(sdk.timestamp());
            // What it writes is read without the SDK, to what the SDK read from its own record.
            Draft back = ObservationCodec.decodeOwn(direct.headers(), direct.value(), 0);
            assertThat(back).isNotNull().isEqualTo(ObservationCodec.decodeWithSdk(sdk.headers(), sdk.value(), 0));
            assertThat(back.time()).isEqualTo(Times.format(Times.parseOrNull(draft.time())));
        }
        Draft noHorizon = new Draft(
                "demo.note",
                "s",
                "2026-11-29T18:00:00.000Z",
                "measured",
                "probe",
                "machine_verified",
                null,
                "probe:ci",
                Json.object());
        assertThatThrownBy(() -> ObservationCodec.encodeWithSdk("mp.obs.w", "w", null, noHorizon))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ObservationCodec.encode("mp.obs.w", "w", null, noHorizon))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void onlyASourceEveryUriParserTakesSkipsTheParse() throws Exception {
        for (String own : new String[] {"monitor:w", "monitor:A-z_0.9", "monitor:.", "monitor:" + "x".repeat(64)}) {
            assertThat(ObservationCodec.ownSource(own)).as(own).isTrue();
            assertThat(new java.net.URI(own).getScheme()).as(own).isEqualTo("monitor");
        }
        for (String other : new String[] {
            "monitor:", "monitor:w x", "monitor:w%zz", "monitor:w/x", "monitor:w#x", "monitor:é", "Monitor:w", "w"
        }) {
            assertThat(ObservationCodec.ownSource(other)).as(other).isFalse();
        }
    }

    /**
     * Every variant of an encoded record's headers and value decodes to what the CloudEvents SDK made of it: the
     * direct reader takes only the exact shape this server writes and leaves everything else to the SDK.
     */
    @Test
    void everyRecordDecodesAsTheSdkDecodedIt() {
        Draft draft = sample("build-1", "2026-11-29T18:00:00.120Z", "{\"ok\":true}");
        ProducerRecord<String, byte[]> record = ObservationCodec.encode("mp.obs.w", "w", "id-1", draft);
        java.util.List<java.util.function.UnaryOperator<java.util.Map<String, byte[]>>> changes =
                new java.util.ArrayList<>();
        changes.add(h -> h);
        for (String key : headerMap(record.headers()).keySet()) {
            changes.add(h -> without(h, key));
            changes.add(h -> with(h, key, null));
            changes.add(h -> with(h, key, ""));
            changes.add(h -> with(h, key, "not a: uri or time {}"));
            changes.add(h -> with(h, key.toUpperCase(java.util.Locale.ROOT), "X"));
        }
        changes.add(h -> with(h, "ce_time", "2026-11-29T19:00:00.5+01:00"));
        changes.add(h -> with(h, "ce_time", "2026-11-29T18:00Z"));
        changes.add(h -> with(h, "ce_specversion", "0.3"));
        changes.add(h -> with(h, "content-type", "application/cloudevents+json"));
        changes.add(h -> with(h, "content-type", "text/plain"));
        changes.add(h -> with(h, "ce_source", "https://example.com/x"));
        changes.add(h -> with(h, "ce_source", "monitor:w x"));
        changes.add(h -> with(h, "ce_source", "monitor:"));
        changes.add(h -> with(h, "ce_source", "monitor:."));
        changes.add(h -> with(h, "ce_source", "monitor:A-z_0.9"));
        changes.add(h -> with(h, "ce_source", "monitor:w%zz"));
        changes.add(h -> with(h, "ce_source", "monitor:w#x#y"));
        changes.add(h -> with(h, "ce_source", "monitor:w/é"));
        changes.add(h -> with(h, "ce_extra", "1"));
        changes.add(h -> with(h, "traceparent", "00-abc"));
        changes.add(h -> with(h, "ce_", "1"));
        byte[][] values = {
            record.value(),
            null,
            new byte[0],
            "[1,2]".getBytes(StandardCharsets.UTF_8),
            "7".getBytes(StandardCharsets.UTF_8),
            "not json".getBytes(StandardCharsets.UTF_8)
        };
        int ownShape = 0;
        // One decoder through all of them, as a fold reads record after record: what it remembers never shows.
        ObservationDecoder decoder = new ObservationDecoder();
        for (java.util.function.UnaryOperator<java.util.Map<String, byte[]>> change : changes) {
            for (boolean twice : new boolean[] {false, true}) {
                for (byte[] value : values) {
                    org.apache.kafka.common.header.internals.RecordHeaders headers =
                            new org.apache.kafka.common.header.internals.RecordHeaders();
                    java.util.Map<String, byte[]> map = change.apply(bytesOf(record.headers()));
                    map.forEach((k, v) -> headers.add(k, v));
                    if (twice) {
                        headers.add("ce_type", "demo.other".getBytes(StandardCharsets.UTF_8));
                    }
                    Draft viaSdk = outcome(() -> ObservationCodec.decodeWithSdk(headers, value, 1_764_439_200_000L));
                    String what =
                            map.keySet() + " " + (value == null ? null : new String(value, StandardCharsets.UTF_8));
                    try {
                        Draft direct = ObservationCodec.decodeOwn(headers, value, 1_764_439_200_000L);
                        if (direct != null) {
                            ownShape++;
                            assertThat(direct).as(what).isEqualTo(viaSdk);
                        }
                    } catch (RuntimeException e) {
                        assertThat(viaSdk).as("the SDK refused it too: " + what).isNull();
                    }
                    // What the SDK refused is an undecodable row, as it was; the rest is what the SDK read.
                    Draft served = ObservationCodec.decode("w", headers, value, 1_764_439_200_000L);
                    if (viaSdk == null) {
                        assertThat(served.type()).isEqualTo(Vocabulary.UNDECODABLE);
                    } else {
                        assertThat(served).isEqualTo(viaSdk);
                    }
                    assertThat(decoder.decode("w", headers, value, 1_764_439_200_000L))
                            .as("by the decoder: " + what)
                            .isEqualTo(served);
                }
            }
        }
        // The direct reader did take the records this server writes (and the variants that keep their shape).
        assertThat(ownShape).isGreaterThan(values.length);
    }

    private static Draft outcome(java.util.function.Supplier<Draft> decode) {
        try {
            return decode.get();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static java.util.Map<String, byte[]> bytesOf(org.apache.kafka.common.header.Headers headers) {
        java.util.Map<String, byte[]> out = new java.util.LinkedHashMap<>();
        headers.forEach(h -> out.put(h.key(), h.value()));
        return out;
    }

    private static java.util.Map<String, byte[]> without(java.util.Map<String, byte[]> h, String key) {
        h.remove(key);
        return h;
    }

    private static java.util.Map<String, byte[]> with(java.util.Map<String, byte[]> h, String key, String value) {
        h.put(key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        return h;
    }
}
