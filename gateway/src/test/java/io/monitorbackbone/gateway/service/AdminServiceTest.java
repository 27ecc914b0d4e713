package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.request.Compact;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** AdminService over in-memory ports: absent without an admin token, only for that token, and compaction's floors. */
class AdminServiceTest {

    private static ErrorCode code(Throwable t) {
        return ((ProtocolException) t).code();
    }

    @Test
    void withoutAnAdminTokenTheEndpointsDoNotExist() {
        World w = new World();

        assertThatThrownBy(() -> w.admin.snapshot("anything"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() ->
                        w.admin.compact("anything", Compact.parse(Json.object().put("upto_seq", 1))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void onlyTheAdminTokenSeesTheSnapshotWhichShowsTokenHashesNeverTokens() {
        World w = new World(Optional.empty(), Optional.of("admin-secret"));
        String owner = w.monitor("ci");
        String[] sub = w.subscribe("ci", "agent:claude", null, "observe");

        assertThatThrownBy(() -> w.admin.snapshot(owner))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));

        JsonNode snapshot = w.admin.snapshot("admin-secret").body();

        assertThat(snapshot.get("monitors")).hasSize(1);
        assertThat(snapshot.get("subscriptions")).hasSize(1);
        assertThat(snapshot.get("cursors").has(sub[0])).isTrue();
        assertThat(snapshot.toString())
                .doesNotContain(owner)
                .doesNotContain(sub[1])
                .contains(Tokens.hash(owner));
    }

    @Test
    void compactionMovesTheNamedMonitorsFloorAndSaysHowManyItDropped() {
        World w = new World(Optional.empty(), Optional.of("admin-secret"));
        String owner = w.monitor("ci");
        w.publish("ci", owner, "a");
        w.publish("ci", owner, "b");
        w.monitor("other");

        JsonNode reply = w.admin
                .compact(
                        "admin-secret",
                        Compact.parse(Json.object().put("monitor", "ci").put("upto_seq", 2)))
                .body();

        assertThat(reply.get("compacted").asLong()).isEqualTo(2);
        assertThat(reply.get("retention_floor").asLong()).isEqualTo(3);
        assertThat(w.log.bounds("ci").floor()).isEqualTo(3);
        assertThat(w.log.bounds("other").floor()).isEqualTo(1);
        assertThatThrownBy(() -> w.admin.compact(
                        "admin-secret",
                        Compact.parse(Json.object().put("monitor", "nope").put("upto_seq", 2))))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
    }
}
