package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A server started with a registration token and an allowed web origin. */
class ConfiguredServerIT {
    private static final String REGISTRATION = "reg-" + Long.toHexString(System.nanoTime());
    private static final String ORIGIN = "https://console.example";
    private static ServerProcess server;
    private static Http http;

    @BeforeAll
    static void start() {
        server = ServerProcess.builder()
                .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                .env("MP_REGISTRATION_TOKEN", REGISTRATION)
                .env("MP_ALLOW_ORIGIN", ORIGIN)
                .start();
        http = new Http(server.baseUri());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void creatingAMonitorNeedsTheRegistrationTokenAndMakesItAttested() {
        String id = SharedServer.uniqueId("att");

        Http.Response none = http.post("/mp/v0/monitors", "{\"id\":\"" + id + "\"}", null);
        Http.Response wrong = http.post("/mp/v0/monitors", "{\"id\":\"" + id + "\"}", "reg-wrong");
        Http.Response bearer =
                http.post("/mp/v0/monitors", "{\"id\":\"" + id + "\",\"visibility\":\"public\"}", REGISTRATION);
        Http.Response inBody = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + id + "-b\",\"visibility\":\"public\",\"registration_token\":\"" + REGISTRATION + "\"}",
                null);

        assertThat(none.status()).isEqualTo(401);
        assertThat(none.json().get("code").asText()).isEqualTo("UNAUTHORIZED");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(bearer.status()).as(bearer.body()).isEqualTo(201);
        assertThat(bearer.json().at("/monitor/attested").asBoolean()).isTrue();
        assertThat(bearer.json().at("/monitor/owner").asText()).isEqualTo("human:owner");
        assertThat(inBody.status()).isEqualTo(201);
        assertThat(http.get("/mp/v0/monitors/" + id + "/state", null)
                        .json()
                        .at("/confidence/gaps")
                        .toString())
                .doesNotContain("unattested_origin");
        Walk.Monitor unattested = new Walk(SharedServer.http()).createMonitor(SharedServer.uniqueId("unatt"));
        assertThat(SharedServer.http()
                        .get("/mp/v0/monitors/" + unattested.id() + "/state", null)
                        .json()
                        .at("/confidence/gaps")
                        .toString())
                .contains("unattested_origin");
    }

    @Test
    void anAllowedOriginGetsCorsAndAForeignOneDoesNot() {
        Http.Response allowed = http.request("GET", "/mp/v0/discover", null, Map.of("Origin", ORIGIN));
        Http.Response preflight = http.request(
                "OPTIONS", "/mp/v0/monitors", null, Map.of("Origin", ORIGIN, "Access-Control-Request-Method", "POST"));
        Http.Response foreign = http.request("GET", "/mp/v0/discover", null, Map.of("Origin", "https://evil.example"));

        assertThat(allowed.status()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin")).hasValue(ORIGIN);
        assertThat(preflight.status()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods"))
                .hasValue("GET, POST, OPTIONS");
        assertThat(foreign.status()).isEqualTo(403);
        assertThat(foreign.json().get("code").asText()).isEqualTo("ORIGIN_REFUSED");
    }

    @Test
    void aHostThatDoesNotNameThisServerIsRefused() throws IOException {
        String rebound = rawGet("evil.example");
        String loopback = rawGet("localhost:" + server.port());

        assertThat(rebound).startsWith("HTTP/1.1 403").contains("ORIGIN_REFUSED");
        assertThat(loopback).startsWith("HTTP/1.1 200");
    }

    /** java.net.http will not send a Host of our choosing, so this request is written by hand. */
    private static String rawGet(String host) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /mp/v0/discover HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void withoutAnAdminTokenTheAdminPathsDoNotExist() {
        Http.Response snapshot = http.get("/mp/v0/admin/snapshot", "anything");
        Http.Response compact = http.post("/mp/v0/admin/compact", "{\"upto_seq\":1}", null);

        assertThat(snapshot.status()).isEqualTo(404);
        assertThat(compact.status()).isEqualTo(404);
        assertThat(snapshot.json().get("code").asText()).isEqualTo("NOT_FOUND");
        // A body the endpoint would refuse does not tell that it exists either.
        Http.Response badBody = http.post("/mp/v0/admin/compact", "{\"upto_seq\":\"soon\"}", null);
        assertThat(badBody.status()).as(badBody.body()).isEqualTo(404);
        assertThat(badBody.json().get("error").asText()).isEqualTo("unknown route: POST /mp/v0/admin/compact");
    }
}
