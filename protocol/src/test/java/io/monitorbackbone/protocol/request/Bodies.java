package io.monitorbackbone.protocol.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;
import org.assertj.core.api.ThrowableAssert;

/** Request bodies written as JSON text, and the refusal a parse gives, compared as the wire shows it. */
final class Bodies {
    private Bodies() {}

    static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    /** The call is refused with exactly this error body ({@code code, error, done} and every detail). */
    static void refused(ThrowableAssert.ThrowingCallable call, String errorBody) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.toJson()).isEqualTo(body(errorBody)));
    }
}
