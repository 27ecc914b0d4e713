package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RpcCallTest {
    @Test
    void theBearerIsTheTransportsThenMetaThenParams() {
        String params = "{\"_meta\":{\"ai.mentu/bearer\":\"meta\"},\"bearer\":\"param\"}";

        assertThat(RpcCall.bearer(body(params), "header")).isEqualTo("header");
        assertThat(RpcCall.bearer(body(params), null)).isEqualTo("meta");
        assertThat(RpcCall.bearer(body("{\"bearer\":\"param\"}"), null)).isEqualTo("param");
        assertThat(RpcCall.bearer(body("{\"bearer\":5}"), null)).isNull();
        assertThat(RpcCall.bearer(body("{}"), null)).isNull();
    }

    @Test
    void aCallToAMonitorNamesItInIdElseMonitor() {
        RpcCall call = RpcCall.split(
                "monitors/update",
                body("{\"id\":\"w-1\",\"monitor\":\"other\",\"patch\":{\"name\":\"n\"},\"_meta\":{},\"bearer\":\"b\"}"),
                "tok");

        assertThat(call.monitorId()).isEqualTo("w-1");
        assertThat(call.bearer()).isEqualTo("tok");
        assertThat(call.action()).isEqualTo("update");
        assertThat(call.body()).isEqualTo(body("{\"patch\":{\"name\":\"n\"}}"));
        assertThat(RpcCall.split("monitors/state", body("{\"id\":7,\"monitor\":\"w-2\"}"), null)
                        .monitorId())
                .isEqualTo("w-2");
        for (String method : List.of("monitors/get", "monitors/state", "monitors/pause", "monitors/publish")) {
            refused(
                    () -> RpcCall.split(method, body("{}"), null).monitorId(),
                    "{\"code\":\"INVALID\",\"error\":\"params.id (the monitor) is required\",\"done\":[]}");
        }
    }

    @Test
    void aPublishKeepsEveryFieldButTheEnvelope() {
        RpcCall call = RpcCall.split(
                "monitors/publish",
                body("{\"monitor\":\"w-1\",\"type\":\"demo.note\",\"data\":{\"id\":1},\"bearer\":\"b\"}"),
                "b");

        assertThat(call.monitorId()).isEqualTo("w-1");
        assertThat(call.body()).isEqualTo(body("{\"type\":\"demo.note\",\"data\":{\"id\":1}}"));
    }

    @Test
    void aCallToASubscriptionNamesItInSubscriptionElseId() {
        for (String method :
                List.of("feeds/pull", "feeds/ack", "feeds/seek", "feeds/renew", "feeds/retire", "leases/claim")) {
            RpcCall call = RpcCall.split(
                    method, body("{\"subscription\":\"sub-1\",\"id\":\"x\",\"monitor\":\"w\",\"cursor\":3}"), "t");

            assertThat(call.subscriptionId()).isEqualTo("sub-1");
            assertThat(call.body()).isEqualTo(body("{\"monitor\":\"w\",\"cursor\":3}"));
            assertThat(RpcCall.split(method, body("{\"id\":\"sub-2\"}"), null).subscriptionId())
                    .isEqualTo("sub-2");
            refused(
                    () -> RpcCall.split(method, body("{\"monitor\":\"w\"}"), null)
                            .subscriptionId(),
                    "{\"code\":\"INVALID\",\"error\":\"params.subscription is required\",\"done\":[]}");
        }
        assertThat(RpcCall.split("leases/complete", body("{\"id\":\"sub-2\"}"), null)
                        .action())
                .isEqualTo("complete");
    }

    @Test
    void createAndSubscribeKeepIdAndMonitorInTheirBody() {
        RpcCall create = RpcCall.split(
                "monitors/create",
                body("{\"id\":\"w-1\",\"registration_token\":\"reg\",\"_meta\":{\"ai.mentu/bearer\":\"m\"}}"),
                "header");
        RpcCall subscribe = RpcCall.split(
                "feeds/subscribe", body("{\"monitor\":\"w-1\",\"subscriber\":\"a\",\"bearer\":\"b\"}"), "b");

        assertThat(create.body()).isEqualTo(body("{\"id\":\"w-1\",\"registration_token\":\"reg\"}"));
        assertThat(subscribe.body()).isEqualTo(body("{\"monitor\":\"w-1\",\"subscriber\":\"a\"}"));
        assertThat(subscribe.bearer()).isEqualTo("b");
        assertThat(create.monitor()).isNull();
        assertThat(subscribe.subscription()).isNull();
    }

    @Test
    void aCreateCarriesNoBearerOnlyItsRegistrationToken() {
        assertThat(RpcCall.split("monitors/create", body("{}"), "header").bearer())
                .isNull();
    }

    @Test
    void theParamsAreLeftAsTheyAre() {
        var params = body("{\"id\":\"w-1\",\"_meta\":{},\"bearer\":\"b\"}");

        RpcCall.split("monitors/get", params, "b");

        assertThat(params).isEqualTo(body("{\"id\":\"w-1\",\"_meta\":{},\"bearer\":\"b\"}"));
    }
}
