package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import java.net.URI;

/** What a test needs set up before {@code mp} runs, made over plain HTTP so that only the command under test is the cli. */
final class Fixture {
    static final String TYPE = "com.example.ci.run";

    private final Http http;

    Fixture(Http http) {
        this.http = http;
    }

    URI base() {
        return http.base();
    }

    record Monitor(String id, String ownerToken) {}

    record Reader(String subscription, String token) {}

    Monitor monitor(String prefix) {
        String id = prefix + "-" + Long.toHexString(System.nanoTime());
        Http.Response r = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + id + "\",\"visibility\":\"public\",\"capabilities\":[\"observe\"],\"types\":[\"" + TYPE
                        + "\"]}",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Monitor(id, r.json().get("owner_token").asText());
    }

    long publish(Monitor m, String subject) {
        return publish(m, subject, "{\"status\":\"failed\"}");
    }

    long publish(Monitor m, String subject, String data) {
        Http.Response r = http.post(
                "/mp/v0/monitors/" + m.id() + "/observations",
                "{\"type\":\"" + TYPE + "\",\"subject\":\"" + subject
                        + "\",\"actor\":\"probe:ci\",\"origin\":\"probe\",\"data\":" + data + "}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("seq").asLong();
    }

    /** A reader of the monitor's own observations only, so protocol rows do not mix into the lines under test. */
    Reader subscribe(Monitor m, String subscriber) {
        return subscribe(m, subscriber, "{\"types\":[\"" + TYPE + "\"]}");
    }

    Reader subscribe(Monitor m, String subscriber, String filter) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"" + subscriber + "\",\"filter\":" + filter + "}",
                null);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Reader(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    /** What a NEXT line says once everything up to the monitor's head was read: the head + 1. */
    long afterHead(Monitor m) {
        Http.Response r = http.get("/mp/v0/monitors/" + m.id(), m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("head").asLong() + 1;
    }

    Http.Response pull(Reader reader) {
        Http.Response r = http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull", reader.token());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r;
    }

    void retire(Reader reader) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions/" + reader.subscription() + "/retire", "{\"reason\":\"test\"}", reader.token());
        assertThat(r.status()).as(r.body()).isEqualTo(200);
    }

    void compact(Monitor m, long uptoSeq) {
        Http.Response r = http.post(
                "/mp/v0/admin/compact",
                "{\"monitor\":\"" + m.id() + "\",\"upto_seq\":" + uptoSeq + "}",
                CliServer.ADMIN_TOKEN);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
}
