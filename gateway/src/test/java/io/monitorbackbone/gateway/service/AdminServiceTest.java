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

    private static String bridgedMonitor(World w, String id, String topic) {
        com.fasterxml.jackson.databind.node.ObjectNode body = Json.object();
        body.put("id", id);
        body.put("visibility", "public");
        body.putArray("types").add("com.example.order");
        com.fasterxml.jackson.databind.node.ObjectNode source = body.putObject("source");
        source.put("kind", "feed");
        source.put("ref", "kafka:" + topic);
        return w.monitors
                .create(io.monitorbackbone.protocol.request.CreateMonitor.parse(body), null)
                .body()
                .get("owner_token")
                .asText();
    }

    @Test
    void theBridgesAnswerOnlyTheAdminTokenAndRefuseAMonitorThatIsUnknownOrNotBridged() {
        World off = new World();
        assertThatThrownBy(() -> off.admin.bridges("anything"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> off.admin.bridge("anything", "orders"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));

        World w = new World(Optional.empty(), Optional.of("admin-secret"));
        String owner = bridgedMonitor(w, "orders", "orders");
        w.monitor("ci");
        assertThatThrownBy(() -> w.admin.bridges(owner))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(() -> w.admin.bridges(null))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(() -> w.admin.bridge(owner, "orders"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThatThrownBy(() -> w.admin.bridge("admin-secret", "nope"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.toJson().get("monitor").asText()).isEqualTo("nope");
                });
        assertThatThrownBy(() -> w.admin.bridge("admin-secret", "ci"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.toJson().get("bridged").asBoolean(true)).isFalse();
                });
    }

    @Test
    void aBridgeSaysItsLagPerPartitionAndSummedWhatItsRecordsBecameAndWhatItCouldNotRead() {
        World w = new World(Optional.empty(), Optional.of("admin-secret"));
        bridgedMonitor(w, "orders", "orders");
        bridgedMonitor(w, "refunds", "refunds");
        w.monitor("ci");
        w.sourceTopics.put(
                "orders",
                java.util.List.of(
                        new BridgeOffsets.Partition(
                                0, 10L, 7L, new io.monitorbackbone.bridge.BridgeCounts(5, 1, 1), null),
                        new BridgeOffsets.Partition(
                                1, 4L, 4L, new io.monitorbackbone.bridge.BridgeCounts(4, 0, 0), null),
                        new BridgeOffsets.Partition(2, null, 3L, null, "no leader"),
                        new BridgeOffsets.Partition(3, 2L, null, null, null)));

        JsonNode all = w.admin.bridges("admin-secret").body();
        assertThat(all.get("bridges"))
                .extracting(b -> b.get("monitor").asText())
                .containsExactly("orders", "refunds");
        assertThat(w.askedTopics).containsOnlyKeys("orders", "refunds");

        JsonNode orders = w.admin.bridge("admin-secret", "orders").body();
        assertThat(orders.get("group").asText()).isEqualTo("mp-bridge.orders");
        assertThat(orders.get("source").asText()).isEqualTo("present");
        assertThat(orders.get("lag").asLong()).isEqualTo(3);
        assertThat(orders.get("bridged").asLong()).isEqualTo(9);
        assertThat(orders.get("rejected").asLong()).isEqualTo(1);
        assertThat(orders.get("dead_lettered").asLong()).isEqualTo(1);
        assertThat(orders.get("complete").asBoolean()).isFalse();
        assertThat(orders.at("/partitions/0/lag").asLong()).isEqualTo(3);
        assertThat(orders.at("/partitions/2/lag").isNull()).isTrue();
        assertThat(orders.at("/partitions/3/committed").isNull()).isTrue();
        assertThat(orders.get("unreadable")).hasSize(1);
        assertThat(orders.at("/unreadable/0/partition").asInt()).isEqualTo(2);
        assertThat(orders.at("/unreadable/0/reason").asText()).isEqualTo("no leader");

        JsonNode refunds = w.admin.bridge("admin-secret", "refunds").body();
        assertThat(refunds.get("source").asText()).isEqualTo("missing");
        assertThat(refunds.get("source_problem").asText()).isEqualTo("the topic does not exist");
        assertThat(refunds.get("complete").asBoolean()).isFalse();
        assertThat(refunds.get("partitions")).isEmpty();
    }
}
