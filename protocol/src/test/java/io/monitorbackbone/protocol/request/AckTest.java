package io.monitorbackbone.protocol.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AckTest {
    private static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aCursorIsAnIntegerOrAStringOfDigits() {
        assertThat(Ack.parse(body("{\"cursor\":5}"))).isEqualTo(new Ack(5));
        assertThat(Ack.parse(body("{\"cursor\":\"12\",\"subscription\":\"sub-1\",\"bearer\":\"t\"}")))
                .isEqualTo(new Ack(12));
        assertThat(Ack.parse(body("{\"cursor\":0}"))).isEqualTo(new Ack(0));
    }

    @Test
    void whatAClientSendsReadsBackAsTheSameAck() {
        assertThat(Ack.parse(new Ack(42).toJson())).isEqualTo(new Ack(42));
        assertThat(new Ack(42).toJson().toString()).isEqualTo("{\"cursor\":42}");
    }

    @Test
    void anythingElseIsRefusedShowingWhatWasGiven() {
        for (String given :
                new String[] {"-1", "1.5", "\"-3\"", "\"\"", "null", "true", "[1]", "123456789012345678901"}) {
            assertThatThrownBy(() -> Ack.parse(body("{\"cursor\":" + given + "}")))
                    .isInstanceOfSatisfying(ProtocolException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID);
                        assertThat(e.getMessage()).isEqualTo("cursor must be a non-negative integer");
                        assertThat(e.toJson().get("cursor"))
                                .isEqualTo(Json.read(given.getBytes(StandardCharsets.UTF_8)));
                    });
        }
        assertThatThrownBy(() -> Ack.parse(body("{}")))
                .isInstanceOfSatisfying(
                        ProtocolException.class,
                        e -> assertThat(e.toJson().get("cursor").isNull()).isTrue());
    }
}
