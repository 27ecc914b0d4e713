package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import org.junit.jupiter.api.Test;

/** JSON-RPC 2.0 at /mp/v0/rpc: the REST binding's methods, results and errors, one call or a batch. */
class JsonRpcIT {
    private final Http http = SharedServer.http();

    private JsonNode rpc(String body, String bearer) {
        Http.Response r = http.post("/mp/v0/rpc", body, bearer);
        assertThat(r.status()).as("JSON-RPC answers 200 whatever happened").isEqualTo(200);
        return r.json();
    }

    @Test
    void aMonitorsLifeOverRpc() {
        String id = SharedServer.uniqueId("rpc");

        JsonNode created = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/create\",\"params\":{\"id\":\"" + id
                        + "\",\"visibility\":\"public\"}}",
                null);
        String owner = created.at("/result/owner_token").asText();
        JsonNode published = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"monitors/publish\",\"params\":{\"id\":\"" + id
                        + "\",\"type\":\"demo.note\",\"subject\":\"s\",\"_meta\":{\"ai.mentu/bearer\":\"" + owner
                        + "\"}}}",
                null);
        JsonNode refused = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"monitors/publish\",\"params\":{\"id\":\"" + id
                        + "\",\"type\":\"demo.note\",\"tier\":\"bogus\"}}",
                owner);
        JsonNode subscribed = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"feeds/subscribe\",\"params\":{\"monitor\":\"" + id
                        + "\",\"subscriber\":\"agent:rpc\"}}",
                null);
        String subscription = subscribed.at("/result/subscription/id").asText();
        String token = subscribed.at("/result/token").asText();
        JsonNode pulled = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"feeds/pull\",\"params\":{\"subscription\":\"" + subscription
                        + "\",\"limit\":10,\"types\":[\"demo.note\"]}}",
                token);
        JsonNode acked = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"feeds/ack\",\"params\":{\"subscription\":\"" + subscription
                        + "\",\"cursor\":" + pulled.at("/result/next").asLong() + "}}",
                token);
        JsonNode paused = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"monitors/pause\",\"params\":{\"id\":\"" + id
                        + "\",\"bearer\":\"" + owner + "\"}}",
                null);
        JsonNode state = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"monitors/state\",\"params\":{\"monitor\":\"" + id + "\"}}",
                null);

        assertThat(created.get("jsonrpc").asText()).isEqualTo("2.0");
        assertThat(created.get("id").asInt()).isEqualTo(1);
        Schemas.assertValid("monitor", created.at("/result/monitor"));
        assertThat(published.at("/result/seq").asLong()).isEqualTo(2);
        assertThat(refused.at("/error/code").asInt()).isEqualTo(-32001);
        assertThat(refused.at("/error/data/code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(refused.at("/error/data/rejected_seq").asLong()).isEqualTo(3);
        Schemas.assertValid("error", refused.at("/error/data"));
        assertThat(subscribed.get("id").asText()).isEqualTo("s");
        assertThat(pulled.at("/result/observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.note");
        assertThat(acked.at("/result/lag").asLong()).isZero();
        assertThat(paused.at("/result/monitor/active").asBoolean()).isFalse();
        assertThat(state.at("/result/live/reason").asText()).isEqualTo("paused");
    }

    @Test
    void errorsCarryTheirNumericCodeAndTheRestBody() {
        JsonNode unknownMethod = rpc("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/frobnicate\"}", null);
        JsonNode notFound = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"monitors/get\",\"params\":{\"id\":\"no-such-monitor\"}}",
                null);
        JsonNode unauthorized = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"feeds/pull\",\"params\":{\"subscription\":\"sub-x\"}}",
                "nope");
        JsonNode garbage = rpc("{not json", null);
        JsonNode noMethod = rpc("{\"jsonrpc\":\"2.0\",\"id\":9}", null);

        assertThat(unknownMethod.at("/error/code").asInt()).isEqualTo(-32006);
        assertThat(notFound.at("/error/code").asInt()).isEqualTo(-32006);
        assertThat(notFound.at("/error/data/code").asText()).isEqualTo("NOT_FOUND");
        assertThat(unauthorized.at("/error/code").asInt()).isEqualTo(-32006);
        assertThat(garbage.at("/error/code").asInt()).isEqualTo(-32003);
        assertThat(garbage.get("id").isNull()).isTrue();
        assertThat(noMethod.at("/error/code").asInt()).isEqualTo(-32003);
        assertThat(noMethod.get("id").asInt()).isEqualTo(9);
    }

    @Test
    void aBatchAnswersEveryCallInOrder() {
        JsonNode batch = rpc(
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/discover\"},"
                        + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"monitors/get\",\"params\":{\"id\":\"no-such-monitor\"}},"
                        + "{\"jsonrpc\":\"2.0\",\"method\":\"monitors/list\"}]",
                null);

        assertThat(batch.isArray()).isTrue();
        assertThat(batch).hasSize(3);
        assertThat(batch.get(0).at("/result/supportedVersions/0").asText()).isEqualTo("0.1");
        assertThat(batch.get(1).at("/error/code").asInt()).isEqualTo(-32006);
        assertThat(batch.get(2).get("id").isNull()).isTrue();
        assertThat(batch.get(2).at("/result/monitors").isArray()).isTrue();
    }

    @Test
    void aBatchPublishOverRpcAnswersEachItemInOrder() {
        String id = SharedServer.uniqueId("rpcb");
        String owner = rpc(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"monitors/create\",\"params\":{\"id\":\"" + id
                                + "\",\"visibility\":\"public\"}}",
                        null)
                .at("/result/owner_token")
                .asText();

        JsonNode batch = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"monitors/publish_batch\",\"params\":{\"id\":\"" + id
                        + "\",\"observations\":[{\"type\":\"demo.note\"},{\"type\":\"demo.note\",\"tier\":\"bogus\"},"
                        + "{\"type\":\"demo.note\"}]}}",
                owner);
        JsonNode empty = rpc(
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"monitors/publish_batch\",\"params\":{\"id\":\"" + id
                        + "\",\"observations\":[]}}",
                owner);

        JsonNode results = batch.at("/result/results");
        assertThat(results).extracting(r -> r.get("status").asInt()).containsExactly(201, 400, 201);
        assertThat(results.get(1).get("code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(results.get(0).get("seq").asLong())
                .isLessThan(results.get(1).get("rejected_seq").asLong());
        assertThat(results.get(1).get("rejected_seq").asLong())
                .isLessThan(results.get(2).get("seq").asLong());
        assertThat(empty.at("/error/data/code").asText()).isEqualTo("INVALID");
        assertThat(empty.at("/error/data/rejected_seq").asLong()).isPositive();
    }
}
