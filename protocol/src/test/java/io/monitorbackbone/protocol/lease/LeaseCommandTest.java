package io.monitorbackbone.protocol.lease;

import static io.monitorbackbone.protocol.lease.LeaseFixtures.T0;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.request.LeaseCall;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseCommandTest {
    private static final Monitor MONITOR = MonitorDefinitions.create(
                    "w-1",
                    body("{\"owner\":\"human:alice\",\"horizon\":\"minute\",\"visibility\":\"public\"}"),
                    T0,
                    false)
            .monitor();

    private static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes());
    }

    private static Subscription subscription(List<String> capabilities) {
        return new Subscription(
                "sub-a",
                "w-1",
                "agent:worker-1",
                Json.object(),
                capabilities,
                "none",
                "pull",
                null,
                null,
                "2026-11-29T18:00:00.000Z",
                true,
                "hash");
    }

    @Test
    void aRequestBodyBecomesACommandForItsMonitorAndSubject() {
        LeaseCommand c = LeaseCommand.fromRequest(
                LeaseCall.parse(
                        "claim",
                        body("{\"subject\":\"build-1\",\"lease_duration_seconds\":30,\"note\":\"taking it\"}")),
                MONITOR,
                subscription(List.of("observe", "act")),
                5,
                "req-1",
                true);

        assertThat(c.key()).isEqualTo("w-1\u0000build-1");
        assertThat(c.holder()).isEqualTo("sub:sub-a");
        assertThat(c.subscriber()).isEqualTo("agent:worker-1");
        assertThat(c.horizon()).isEqualTo("minute");
        assertThat(c.leaseDurationSeconds()).isEqualTo(30L);
        assertThat(c.note()).isEqualTo("taking it");
    }

    @Test
    void aSubscriptionWithoutActIsRefused() {
        assertThatThrownBy(() -> LeaseCommand.fromRequest(
                        LeaseCall.parse("claim", body("{\"subject\":\"build-1\"}")),
                        MONITOR,
                        subscription(List.of("observe")),
                        5,
                        "req-1",
                        true))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.CAPABILITY_MISSING);
                    assertThat(e.toJson()).isEqualTo(body("""
                            {"code":"CAPABILITY_MISSING","error":"this subscription did not declare 'act'","done":[],
                             "capabilities":["observe"]}"""));
                });
    }

    @Test
    void aCommandSurvivesItsTripThroughTheCommandTopic() {
        LeaseCommand c = LeaseCommand.fromRequest(
                LeaseCall.parse(
                        "complete",
                        body(
                                "{\"subject\":\"build-1\",\"outcome\":\"fixed\",\"evidence\":[{\"id\":\"203\"}],\"note\":\"ok\"}")),
                MONITOR,
                subscription(List.of("act")),
                5,
                "req-1",
                false);

        LeaseCommand back = LeaseCommand.fromJson(Json.read(c.toBytes()));

        assertThat(back).isEqualTo(c);
        assertThat(Json.read(c.toBytes()).fieldNames())
                .toIterable()
                .containsExactly(
                        "request_id",
                        "action",
                        "monitor",
                        "horizon",
                        "attested",
                        "subject",
                        "subscription",
                        "subscriber",
                        "lease_duration_seconds",
                        "note",
                        "outcome",
                        "evidence",
                        "reason",
                        "delivery_count_limit",
                        "published");
    }

    @Test
    void theFingerprintIgnoresTheRequestIdButNotTheBody() {
        LeaseCommand first =
                LeaseFixtures.complete("sub-a").outcome("fixed", null).build();
        LeaseCommand same =
                LeaseFixtures.complete("sub-a").outcome("fixed", null).build();
        LeaseCommand other =
                LeaseFixtures.complete("sub-a").outcome("fixed", null).note("x").build();

        assertThat(first.requestId()).isNotEqualTo(same.requestId());
        assertThat(first.fingerprint()).isEqualTo(same.fingerprint()).isNotEqualTo(other.fingerprint());
    }
}
