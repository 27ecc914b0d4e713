package io.monitorbackbone.protocol.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PublishBatchTest {
    private static ObjectNode body(String json) {
        return Json.parseBody(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void itemsAreKeptInOrderAsSentAndOnlyTheEnvelopeIsChecked() {
        PublishBatch batch = PublishBatch.parse(body("{\"observations\":[{\"type\":\"a.b\"},7,{\"tier\":\"x\"}]}"));

        assertThat(batch.items()).hasSize(3);
        assertThat(batch.items().get(0).get("type").asText()).isEqualTo("a.b");
        assertThat(batch.items().get(1).asInt()).isEqualTo(7);
    }

    @Test
    void anEnvelopeWithoutAnArrayOrWithNoItemIsInvalid() {
        for (String bad : new String[] {"{}", "{\"observations\":{}}", "{\"observations\":[]}"}) {
            ProtocolException e = catchThrowableOfType(() -> PublishBatch.parse(body(bad)), ProtocolException.class);
            assertThat(e.code()).as(bad).isEqualTo(ErrorCode.INVALID);
            assertThat(e.toJson().get("field").asText()).isEqualTo("observations");
        }
    }

    @Test
    void moreObservationsThanTheLimitIsTooLarge() {
        StringBuilder many = new StringBuilder("{\"observations\":[");
        for (int i = 0; i <= Limits.MAX_BATCH_OBSERVATIONS; i++) {
            many.append(i == 0 ? "" : ",").append("{}");
        }
        String tooMany = many.append("]}").toString();
        ProtocolException e = catchThrowableOfType(() -> PublishBatch.parse(body(tooMany)), ProtocolException.class);

        assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE);
        assertThat(e.status()).isEqualTo(413);
        assertThat(e.toJson().get("count").asInt()).isEqualTo(Limits.MAX_BATCH_OBSERVATIONS + 1);
        assertThat(e.toJson().get("max_batch_observations").asInt()).isEqualTo(Limits.MAX_BATCH_OBSERVATIONS);
        assertThat(PublishBatch.parse(body(tooMany.replaceFirst("\\{\\},", ""))).items())
                .hasSize(Limits.MAX_BATCH_OBSERVATIONS);
    }
}
