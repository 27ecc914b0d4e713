package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.request.Ack;
import io.monitorbackbone.protocol.request.Pull;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** DeliveryService over in-memory ports: a pull never moves the cursor, an ack does, and only with the token. */
class DeliveryServiceTest {

    private static Pull pull(String... query) {
        Map<String, List<String>> q = new java.util.LinkedHashMap<>();
        for (int i = 0; i < query.length; i += 2) {
            q.put(query[i], List.of(query[i + 1]));
        }
        return Pull.fromQuery(q);
    }

    private static ErrorCode code(Throwable t) {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return ((ProtocolException) cause).code();
    }

    @Test
    void aPullReturnsTheLogFromTheCursorMarksItDeliveredAndLeavesTheCursorWhereItWas() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        w.publish("ci", owner, "build-1");
        int cursorRows = w.tables.written(Topics.CURSORS).size();

        JsonNode page = w.delivery.pull(sub[0], sub[1], pull()).join().body();

        assertThat(page.get("observations")).hasSize(3);
        assertThat(page.get("next").asLong()).isEqualTo(4);
        assertThat(page.get("head").asLong()).isEqualTo(3);
        assertThat(page.get("lag").asLong()).isEqualTo(3);
        assertThat(page.get("redelivered").asInt()).isZero();
        assertThat(w.tables.cursor(sub[0]).cursor()).isZero();
        assertThat(w.tables.cursor(sub[0]).delivered()).isEqualTo(3);
        assertThat(w.tables.written(Topics.CURSORS)).hasSize(cursorRows + 1);

        // Pulled again from the same cursor: the same observations, now flagged as handed out before.
        JsonNode again = w.delivery.pull(sub[0], sub[1], pull()).join().body();
        assertThat(again.get("redelivered").asInt()).isEqualTo(3);
    }

    @Test
    void aPullWithAnotherTokenIsRefusedAndWritesNothing() {
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        int rows = w.tables.written().size();

        assertThatThrownBy(
                        () -> w.delivery.pull(sub[0], "not-the-token", pull()).join())
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(() -> w.delivery.pull("sub-missing", sub[1], pull()).join())
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(w.tables.written()).hasSize(rows);
    }

    @Test
    void anAckMovesTheCursorClampsItToOnePastTheHeadAndNeverMovesItBack() {
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");

        JsonNode acked = w.delivery
                .ack(sub[0], sub[1], Ack.parse(Json.object().put("cursor", 99)))
                .body();

        assertThat(acked.get("cursor").asLong()).isEqualTo(3);
        assertThat(acked.get("lag").asLong()).isZero();
        assertThat(w.tables.cursor(sub[0]).cursor()).isEqualTo(3);
        assertThatThrownBy(() ->
                        w.delivery.ack(sub[0], sub[1], Ack.parse(Json.object().put("cursor", 1))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CURSOR_BACKWARDS));
        assertThatThrownBy(() ->
                        w.delivery.ack(sub[0], sub[1], Ack.parse(Json.object().put("cursor", -1))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.INVALID));
    }

    @Test
    void aCursorBelowTheRetentionFloorIsExpiredUnderResetPolicyNone() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        w.publish("ci", owner, "a");
        w.log.dropBefore("ci", 2);

        assertThatThrownBy(() -> w.delivery.pull(sub[0], sub[1], pull()).join())
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.CURSOR_EXPIRED));
    }

    @Test
    void aLongPollThatFindsNothingIsAnsweredAtOnceWhenTheProcessStops() {
        World w = new World();
        w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");
        w.delivery.ack(sub[0], sub[1], Ack.parse(Json.object().put("cursor", 3)));

        var parked = w.delivery.pull(sub[0], sub[1], pull("wait", "25"));
        assertThat(parked).isNotDone();
        w.parking.stop();

        JsonNode page = parked.join().body();
        assertThat(page.get("observations")).isEmpty();
        assertThat(page.get("next").asLong()).isEqualTo(3);
    }
}
