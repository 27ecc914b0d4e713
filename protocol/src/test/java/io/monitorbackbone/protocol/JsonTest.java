package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JsonTest {

    /** A publish body whose {@code data} makes the whole body nest {@code depth} levels. */
    static byte[] bodyNested(int depth) {
        int inner = depth - 1;
        String data = "[".repeat(inner) + "]".repeat(inner);
        return ("{\"type\":\"a.b\",\"data\":" + data + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static ErrorCode refusal(String body) {
        try {
            Json.parseBody(body.getBytes(StandardCharsets.UTF_8));
        } catch (ProtocolException e) {
            return e.code();
        }
        return null;
    }

    @Test
    void bodiesUpToTheInputLimitAreAcceptedAndDeeperOnesRefused() {
        for (int d = Json.MAX_INPUT_NESTING - 2; d <= Json.MAX_INPUT_NESTING; d++) {
            assertThat(Json.parseBody(bodyNested(d)).get("data").isArray())
                    .as("depth %d", d)
                    .isTrue();
        }
        for (int d = Json.MAX_INPUT_NESTING + 1; d <= Json.MAX_INPUT_NESTING + 2; d++) {
            int depth = d;
            assertThatThrownBy(() -> Json.parseBody(bodyNested(depth)))
                    .as("depth %d", d)
                    .isInstanceOfSatisfying(ProtocolException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID);
                        assertThat(e.toJson().path("max_depth").asInt()).isEqualTo(Json.MAX_INPUT_NESTING);
                    });
        }
    }

    @Test
    void theDeepestRowTheServerWritesAroundAcceptedInputIsReadBack() {
        ObjectNode body = Json.parseBody(bodyNested(Json.MAX_INPUT_NESTING));
        Monitor monitor = MonitorDefinitions.create(
                        "deep",
                        Json.parseBody("{\"visibility\":\"public\",\"capabilities\":[\"observe\"]}"
                                .getBytes(StandardCharsets.UTF_8)),
                        Instant.EPOCH,
                        false)
                .monitor();
        Draft rejected = ProtocolRows.rejected(
                monitor, ProtocolException.of(ErrorCode.INVALID, "no"), body, "agent:x", null, Instant.EPOCH);
        ObjectNode page = Json.object();
        page.putArray("observations").add(rejected.served("deep", 7, false));
        ObjectNode rpc = JsonRpc.success(Json.MAPPER.getNodeFactory().numberNode(1), page);
        byte[] written = Json.bytes(rpc);
        assertThat(Json.read(written)).isEqualTo(rpc);
        assertThat(Json.read(Json.bytes(rejected.data()))).isEqualTo(rejected.data());
    }

    @Test
    void trailingGarbageASecondDocumentAndDuplicateKeysAreRefused() {
        assertThat(refusal("{\"type\":\"a.b\"} x")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"type\":\"a.b\"}{\"type\":\"a.c\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"type\":\"a.b\",\"type\":\"a.c\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"data\":{\"k\":1,\"k\":2}}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"type\":\"a.b\"}   \n")).isNull();
    }

    @Test
    void whatCannotBeStoredAsSentIsRefused() {
        assertThat(refusal("{\"subject\":\"\\ud800\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"subject\":\"x\\udc00y\"}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"data\":{\"\\ud800\":1}}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"data\":{\"n\":1e400}}")).isEqualTo(ErrorCode.INVALID);
        assertThat(refusal("{\"data\":[-1e400]}")).isEqualTo(ErrorCode.INVALID);
        // A pair is one character and a large finite number is stored as sent.
        ObjectNode ok = Json.parseBody(
                "{\"subject\":\"\\ud83d\\ude00\",\"data\":{\"n\":1e300}}".getBytes(StandardCharsets.UTF_8));
        assertThat(ok.get("subject").asText()).isEqualTo("\uD83D\uDE00");
        JsonNode back = Json.read(Json.bytes(ok));
        assertThat(back).isEqualTo(ok);
    }

    @Test
    void readersAcceptFarDeeperThanAnyWriterProduces() {
        assertThat(Json.MAX_READ_NESTING).isGreaterThan(Json.MAX_INPUT_NESTING + Json.WRAPPER_HEADROOM);
        int d = Json.MAX_INPUT_NESTING + Json.WRAPPER_HEADROOM;
        assertThat(Json.read(("[".repeat(d) + "]".repeat(d)).getBytes(StandardCharsets.UTF_8))
                        .isArray())
                .isTrue();
    }
}
