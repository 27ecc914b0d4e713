package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContentDigestTest {
    private static ObjectNode data(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Digests are kept in every aggregate ({@code corroboration.subjects[].digest}) and compared with the next claim's,
     * so a new way of computing one must give the same string for every input, or a restart would count an agreeing
     * claim as a change. These are the digests the first way (a copy of data without provenance and tags, written
     * canonically; 01de714) gave, for type {@code demo.v} and for no type.
     */
    private static final List<Map.Entry<String, List<String>>> FIRST_WAY = List.of(
            Map.entry("{}", List.of("056f1f2db715966a", "a062dd4952b935e4")),
            Map.entry(
                    "{\"provenance\":{\"actor\":\"probe:a\"},\"tags\":{\"k\":\"v\"}}",
                    List.of("056f1f2db715966a", "a062dd4952b935e4")),
            Map.entry(
                    "{\"payload\":{\"status\":\"ok\",\"n\":1},\"provenance\":{\"origin\":\"probe\"},\"tags\":{}}",
                    List.of("d7e922111f404ab6", "69d7d887257230a3")),
            Map.entry("{\"payload\":{\"n\":1.0}}", List.of("9fd4cf5203b5acc5", "e5f6cb46cdd630b9")),
            Map.entry("{\"payload\":{\"n\":1}}", List.of("0d7be9c3b1844487", "468d9005b80a9863")),
            Map.entry(
                    "{\"b\":[3,{\"z\":null,\"a\":true}],\"a\":\"x\",\"é\":\"ü\",\"q\\\"uote\":\"\\n\"}",
                    List.of("24a00dfe059df64c", "5ed0a3bab727d38a")),
            Map.entry(
                    "{\"payload\":{\"provenance\":{\"x\":1},\"tags\":[\"t\"]},\"provenance\":{}}",
                    List.of("c42f195570ee3406", "c1cf5564251ff9db")),
            Map.entry(
                    "{\"tags\":null,\"provenance\":\"not an object\",\"value\":[[],{}]}",
                    List.of("9c286600967348bf", "5d8c149e0006f551")),
            Map.entry(
                    "{\"payload\":{\"deep\":{\"deeper\":{\"deepest\":[1,2,{\"k\":\"v\"}]}}}}",
                    List.of("aeb490c20eaa3acf", "2efce6a33b9d27d4")));

    @Test
    void everyDigestIsTheOneTheFirstWayGaveAndDataIsLeftAsItWas() {
        for (Map.Entry<String, List<String>> c : FIRST_WAY) {
            ObjectNode d = data(c.getKey());
            String before = d.toString();
            assertThat(ContentDigest.of("demo.v", d))
                    .as("demo.v of %s", c.getKey())
                    .isEqualTo(c.getValue().get(0));
            assertThat(ContentDigest.of(null, d))
                    .as("no type, %s", c.getKey())
                    .isEqualTo(c.getValue().get(1));
            assertThat(d.toString()).as("data after the digest").isEqualTo(before);
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
