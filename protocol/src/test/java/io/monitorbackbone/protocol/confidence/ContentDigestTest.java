package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.monitorbackbone.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContentDigestTest {
    private static ObjectNode data(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The digest as it was first written (a copy of data without provenance and tags, written canonically). Digests
     * are kept in every aggregate ({@code corroboration.subjects[].digest}) and compared with the next claim's, so a
     * new way of computing one must give the same string for every input, or a restart would count an agreeing claim
     * as a change.
     */
    private static String asFirstWritten(String type, ObjectNode data) {
        StringBuilder canonical = new StringBuilder();
        canonical.append(type == null ? "" : type).append('\n');
        ObjectNode claim = data.deepCopy();
        claim.remove("provenance");
        claim.remove("tags");
        write(claim, canonical);
        return HexFormat.of().formatHex(Subjects.sha256(canonical.toString().getBytes(StandardCharsets.UTF_8)), 0, 8);
    }

    private static void write(JsonNode node, StringBuilder out) {
        if (node.isObject()) {
            List<String> keys = new ArrayList<>();
            node.fieldNames().forEachRemaining(keys::add);
            keys.sort(null);
            out.append('{');
            for (int i = 0; i < keys.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(TextNode.valueOf(keys.get(i))).append(':');
                write(node.get(keys.get(i)), out);
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(node.get(i), out);
            }
            out.append(']');
        } else {
            out.append(node.toString());
        }
    }

    @Test
    void everyDigestIsTheOneTheFirstWayGaveAndDataIsLeftAsItWas() {
        List<String> inputs = List.of(
                "{}",
                "{\"provenance\":{\"actor\":\"probe:a\"},\"tags\":{\"k\":\"v\"}}",
                "{\"payload\":{\"status\":\"ok\",\"n\":1},\"provenance\":{\"origin\":\"probe\"},\"tags\":{}}",
                "{\"payload\":{\"n\":1.0}}",
                "{\"payload\":{\"n\":1}}",
                "{\"b\":[3,{\"z\":null,\"a\":true}],\"a\":\"x\",\"é\":\"ü\",\"q\\\"uote\":\"\\n\"}",
                // Only the top level's provenance and tags are who said it; nested ones are what was said.
                "{\"payload\":{\"provenance\":{\"x\":1},\"tags\":[\"t\"]},\"provenance\":{}}",
                "{\"tags\":null,\"provenance\":\"not an object\",\"value\":[[],{}]}",
                "{\"payload\":{\"deep\":{\"deeper\":{\"deepest\":[1,2,{\"k\":\"v\"}]}}}}");
        for (String json : inputs) {
            for (String type : new String[] {"demo.v", null, "a.b\nc"}) {
                ObjectNode d = data(json);
                String before = d.toString();
                assertThat(ContentDigest.of(type, d)).as("%s of %s", type, json).isEqualTo(asFirstWritten(type, d));
                assertThat(d.toString()).as("data after the digest").isEqualTo(before);
            }
        }
    }

    @Test
    void whoSaidItAndKeyOrderDoNotChangeTheDigestButWhatWasSaidDoes() {
        String plain = ContentDigest.of("demo.v", data("{\"payload\":{\"a\":1,\"b\":2}}"));

        assertThat(
                        ContentDigest.of(
                                "demo.v",
                                data(
                                        "{\"tags\":{\"x\":\"y\"},\"payload\":{\"b\":2,\"a\":1},\"provenance\":{\"actor\":\"p\"}}")))
                .isEqualTo(plain);
        assertThat(ContentDigest.of("demo.v", data("{\"payload\":{\"a\":1,\"b\":3}}")))
                .isNotEqualTo(plain);
        assertThat(ContentDigest.of("demo.w", data("{\"payload\":{\"a\":1,\"b\":2}}")))
                .isNotEqualTo(plain);
        assertThat(ContentDigest.of("demo.v", data("{\"payload\":{\"a\":1,\"b\":2},\"extra\":{\"tags\":1}}")))
                .isNotEqualTo(plain);
    }
}
