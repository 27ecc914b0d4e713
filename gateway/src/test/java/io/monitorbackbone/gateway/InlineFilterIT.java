package io.monitorbackbone.gateway;

import static io.monitorbackbone.gateway.Walk.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import org.junit.jupiter.api.Test;

/**
 * A pull's inline filter may only narrow the stored ones: a value the subscription's or the monitor's stored filter does
 * not pass is refused {@code 400 INVALID_FILTER} naming {@code key} and {@code stored}, as the protocol's suite demands
 * (C08); a concrete type under a stored wildcard narrows and is served.
 */
class InlineFilterIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    private void publish(Walk.Monitor m, String type, String subject) {
        Http.Response r = http.post(
                "/mp/v0/monitors/" + m.id() + "/observations",
                "{\"type\":\"" + type + "\",\"subject\":\"" + subject + "\"}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private Walk.Reader subscribe(Walk.Monitor m, String filter) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:r\",\"from\":1"
                        + (filter == null ? "" : ",\"filter\":" + filter) + "}",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Walk.Reader(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private Http.Response pullRaw(Walk.Reader reader, String query) {
        return http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull" + query, reader.token());
    }

    private static void assertWidens(Http.Response r, String key, String stored, String storedOn) {
        assertRefused(r, 400, "INVALID_FILTER");
        assertThat(r.json().get("key").asText()).as(r.body()).isEqualTo(key);
        assertThat(r.json().get("stored").toString()).as(r.body()).isEqualTo(stored);
        assertThat(r.json().get("stored_on").asText()).as(r.body()).isEqualTo(storedOn);
    }

    private Walk.Monitor monitorWithThreeTypes(String filter) {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"types\":[\"demo.a\",\"demo.b\",\"other.thing\"]"
                + (filter == null ? "" : ",\"filter\":" + filter) + "}");
        publish(m, "demo.a", "a");
        publish(m, "demo.b", "b");
        publish(m, "other.thing", "o");
        return m;
    }

    @Test
    void aConcreteTypeOutsideAStoredConcreteListIsRefusedNamingKeyAndStored() {
        Walk.Monitor m = monitorWithThreeTypes(null);
        Walk.Reader reader = subscribe(m, "{\"types\":[\"demo.a\"]}");

        Http.Response outside = pullRaw(reader, "?types=demo.b");
        JsonNode same = walk.pull(reader, "?types=demo.a").json();

        assertWidens(outside, "types", "{\"types\":[\"demo.a\"]}", "subscription");
        assertThat(outside.json().get("outside")).extracting(JsonNode::asText).containsExactly("demo.b");
        assertThat(same.get("observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.a");
    }

    @Test
    void underAStoredWildcardAConcreteTypeNarrowsAndAValueOutsideItIsRefused() {
        Walk.Monitor m = monitorWithThreeTypes(null);
        Walk.Reader reader = subscribe(m, "{\"types\":[\"demo.*\"]}");

        JsonNode narrower = walk.pull(reader, "?types=demo.a").json();
        JsonNode otherKey = walk.pull(reader, "?subjects=o").json();
        Http.Response outside = pullRaw(reader, "?types=other.thing");
        Http.Response added = pullRaw(reader, "?types=demo.*,other.thing");
        JsonNode stored = walk.pull(reader, "").json();

        assertThat(narrower.get("observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.a");
        assertThat(otherKey.get("observations"))
                .as("a key the stored filter leaves open narrows; AND-ed it matches nothing")
                .isEmpty();
        assertWidens(outside, "types", "{\"types\":[\"demo.*\"]}", "subscription");
        assertWidens(added, "types", "{\"types\":[\"demo.*\"]}", "subscription");
        assertThat(added.json().get("outside")).extracting(JsonNode::asText).containsExactly("other.thing");
        assertThat(stored.get("observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.a", "demo.b");
    }

    @Test
    void theMonitorsStoredFilterBoundsAnInlineFilterToo() {
        Walk.Monitor m = monitorWithThreeTypes("{\"types\":[\"demo.*\"]}");
        Walk.Reader reader = subscribe(m, null);

        Http.Response outside = pullRaw(reader, "?types=other.thing");
        JsonNode narrower = walk.pull(reader, "?types=demo.b").json();

        assertWidens(outside, "types", "{\"types\":[\"demo.*\"]}", "monitor");
        assertThat(narrower.get("observations"))
                .extracting(o -> o.get("type").asText())
                .containsExactly("demo.b");
    }

    @Test
    void jsonRpcPullsAreHeldToTheSameRule() {
        Walk.Monitor m = monitorWithThreeTypes(null);
        Walk.Reader reader = subscribe(m, "{\"types\":[\"demo.a\"]}");

        Http.Response r = http.post(
                "/mp/v0/rpc",
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"feeds/pull\",\"params\":{\"subscription\":\""
                        + reader.subscription() + "\",\"types\":\"demo.b\"}}",
                reader.token());

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().at("/error/data/code").asText()).as(r.body()).isEqualTo("INVALID_FILTER");
        assertThat(r.json().at("/error/data/key").asText()).as(r.body()).isEqualTo("types");
    }
}
