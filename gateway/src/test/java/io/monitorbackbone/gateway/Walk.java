package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;

/** The protocol's basic moves as a test client makes them, each answer checked against its status and schema. */
final class Walk {
    final Http http;

    Walk(Http http) {
        this.http = http;
    }

    record Monitor(String id, String ownerToken) {}

    record Reader(String subscription, String token) {}

    /** A monitor with a fresh id and the given definition fields (a JSON object without {@code id}). */
    Monitor monitorWith(String definition) {
        String id = SharedServer.uniqueId("m");
        Http.Response r = http.post("/mp/v0/monitors", "{\"id\":\"" + id + "\"," + definition.substring(1), null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Monitor(id, r.json().get("owner_token").asText());
    }

    static void assertRefused(Http.Response r, int status, String code) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("code").asText()).isEqualTo(code);
        Schemas.assertValid("error", r.json());
    }

    Monitor createMonitor(String id) {
        Http.Response r = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + id
                        + "\",\"name\":\"CI\",\"horizon\":\"minute\",\"capabilities\":[\"observe\"],\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]}",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        Schemas.assertValid("monitor", r.json().get("monitor"));
        return new Monitor(id, r.json().get("owner_token").asText());
    }

    long publish(Monitor m, String subject) {
        Http.Response r = http.post(
                "/mp/v0/monitors/" + m.id() + "/observations",
                "{\"type\":\"com.example.ci.run\",\"subject\":\"" + subject
                        + "\",\"actor\":\"probe:ci\",\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"status\":\"failed\"}}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        Schemas.assertValid("observation", r.json().get("observation"));
        return r.json().get("seq").asLong();
    }

    Reader subscribe(Monitor m, String subscriber) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"" + subscriber + "\",\"capabilities\":[\"observe\"]}",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        Schemas.assertValid("subscription", r.json().get("subscription"));
        return new Reader(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    Http.Response pull(Reader reader, String query) {
        Http.Response r = http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull" + query, reader.token());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        r.json().get("observations").forEach(o -> Schemas.assertValid("observation", o));
        return r;
    }

    Http.Response ack(Reader reader, long cursor) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions/" + reader.subscription() + "/ack",
                "{\"cursor\": " + cursor + "}",
                reader.token());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r;
    }

    Http.Response state(Monitor m) {
        Http.Response r = http.get("/mp/v0/monitors/" + m.id() + "/state", null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        Schemas.assertValid("state", r.json());
        return r;
    }
}
