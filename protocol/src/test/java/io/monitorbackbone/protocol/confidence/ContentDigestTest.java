package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
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

    /** Every character class Jackson's writer treats apart, and some it does not. */
    private static final String CHARACTERS =
            "ab\"\\/\u007f\u0000\u0001\u0008\t\n\u000b\f\r\u001f \u00e9\u2028\ud83d\ude00\ud800";

    @Test
    void aStringIsQuotedAsJacksonQuotesIt() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(17);
        for (int c = 0; c < 0x10000; c++) {
            String one = String.valueOf((char) c);
            assertThat(quoted(one))
                    .as("U+%04X", c)
                    .isEqualTo(TextNode.valueOf(one).toString());
        }
        for (int i = 0; i < 5_000; i++) {
            StringBuilder text = new StringBuilder();
            for (int n = random.nextInt(12); n > 0; n--) {
                text.append(CHARACTERS.charAt(random.nextInt(CHARACTERS.length())));
            }
            String t = text.toString();
            assertThat(quoted(t)).as("%s", t).isEqualTo(TextNode.valueOf(t).toString());
        }
    }

    @Test
    void randomDataGetsTheDigestTheFirstWayGave() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(23);
        for (int i = 0; i < 3_000; i++) {
            ObjectNode d = (ObjectNode) randomNode(random, 0, true);
            assertThat(ContentDigest.of("demo.v", d)).as("%s", d).isEqualTo(firstWay("demo.v", d));
        }
    }

    private static String quoted(String text) {
        StringBuilder out = new StringBuilder();
        ContentDigest.quote(text, out);
        return out.toString();
    }

    private static com.fasterxml.jackson.databind.JsonNode randomNode(
            java.util.SplittableRandom random, int depth, boolean object) {
        int kind = object ? 0 : random.nextInt(depth > 3 ? 2 : 0, 10);
        switch (kind) {
            case 0 -> {
                ObjectNode o = Json.object();
                for (int n = random.nextInt(5); n > 0; n--) {
                    String key = random.nextInt(6) == 0 ? (random.nextBoolean() ? "provenance" : "tags") : text(random);
                    o.set(key, randomNode(random, depth + 1, false));
                }
                return o;
            }
            case 1 -> {
                com.fasterxml.jackson.databind.node.ArrayNode a = Json.MAPPER.createArrayNode();
                for (int n = random.nextInt(4); n > 0; n--) {
                    a.add(randomNode(random, depth + 1, false));
                }
                return a;
            }
            case 2, 3 -> {
                return TextNode.valueOf(text(random));
            }
            case 4 -> {
                return Json.MAPPER.getNodeFactory().numberNode(random.nextInt());
            }
            case 5 -> {
                return Json.MAPPER
                        .getNodeFactory()
                        .numberNode(random.nextBoolean() ? Long.MIN_VALUE : random.nextLong());
            }
            case 6 -> {
                return Json.MAPPER.getNodeFactory().numberNode(random.nextDouble() * 1e6);
            }
            case 7 -> {
                return Json.read(("" + random.nextInt(100) + ".50").getBytes(StandardCharsets.UTF_8));
            }
            case 8 -> {
                return Json.MAPPER.getNodeFactory().booleanNode(random.nextBoolean());
            }
            default -> {
                return Json.MAPPER.getNodeFactory().nullNode();
            }
        }
    }

    private static String text(java.util.SplittableRandom random) {
        StringBuilder t = new StringBuilder();
        for (int n = random.nextInt(8); n > 0; n--) {
            t.append(CHARACTERS.charAt(random.nextInt(CHARACTERS.length())));
        }
        return t.toString();
    }

    /**
     * The first way, independently of ContentDigest: a copy of data without its top-level provenance and tags, written
     * by Jackson with every object's properties sorted.
     */
    private static String firstWay(String type, ObjectNode data) {
        ObjectNode claim = data.deepCopy();
        claim.remove(List.of("provenance", "tags"));
        String canonical;
        try {
            canonical = Json.MAPPER
                    .writer()
                    .with(com.fasterxml.jackson.databind.cfg.JsonNodeFeature.WRITE_PROPERTIES_SORTED)
                    .writeValueAsString(claim);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(e);
        }
        return java.util.HexFormat.of()
                .formatHex(Subjects.sha256((type + "\n" + canonical).getBytes(StandardCharsets.UTF_8)), 0, 8);
    }
}
