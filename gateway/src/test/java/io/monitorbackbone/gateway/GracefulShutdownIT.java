package io.monitorbackbone.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A stop of a real server process, step by step: readiness DOWN first while every request is still served (each
 * answer then closing its connection, so a load balancer that keeps connections to the gateway moves on), an SSE
 * stream still delivering during the delay and ended after it, and a request in flight when the drain begins (its body
 * still arriving after parked pulls were answered) answered with its Kafka write acknowledged before the Kafka clients
 * close. {@link HealthMetricsIT} shows the parked pull answered; {@link ThreeGatewaysIT} puts it all behind HAProxy.
 */
class GracefulShutdownIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void duringTheDelayRequestsAreServedEachClosingItsConnectionAndAStreamDeliversUntilItEnds() throws Exception {
        try (ServerProcess server =
                ServerProcess.builder().env("MP_SHUTDOWN_DELAY", "20s").start()) {
            Http api = new Http(server.baseUri());
            Walk walk = new Walk(api);
            Walk.Monitor monitor = walk.createMonitor(SharedServer.uniqueId("drain"));
            Walk.Reader reader = walk.subscribe(monitor, "agent:streaming");
            List<String> lines = new CopyOnWriteArrayList<>();
            CompletableFuture<HttpResponse<Void>> stream = CLIENT.sendAsync(
                    HttpRequest.newBuilder(server.baseUri()
                                    .resolve("/mp/v0/subscriptions/" + reader.subscription() + "/stream"))
                            .header("Authorization", "Bearer " + reader.token())
                            .timeout(Duration.ofSeconds(120))
                            .build(),
                    HttpResponse.BodyHandlers.ofByteArrayConsumer(bytes ->
                            bytes.ifPresent(b -> new String(b, UTF_8).lines().forEach(lines::add))));
            await().atMost(DEADLINE).until(() -> lines.contains("id: 2"));
            // Before the stop an answer keeps its connection.
            Raw before = Raw.exchange(server.baseUri(), get("/mp/v0/discover", server), null);
            assertThat(before.status()).isEqualTo(200);
            assertThat(before.header("connection")).isNotEqualToIgnoringCase("close");

            server.signal("TERM");
            awaitNotReady(server);

            Raw during = Raw.exchange(server.baseUri(), get("/mp/v0/discover", server), null);
            assertThat(during.status()).as(during.body()).isEqualTo(200);
            assertThat(during.header("connection"))
                    .as("an answer while the server is stopping says it closes its connection")
                    .isEqualToIgnoringCase("close");
            assertThat(during.closed())
                    .as("and the server closed it after the answer")
                    .isTrue();
            // Still served: a new connection, a publish acknowledged by Kafka, delivered on the open stream.
            long seq = walk.publish(monitor, "during-the-delay");
            assertThat(server.isAlive()).isTrue();
            await().atMost(DEADLINE).until(() -> lines.contains("id: " + seq));
            assertThat(stream).as("the stream is open during the delay").isNotDone();

            HttpResponse<Void> ended = stream.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertThat(ended.statusCode()).isEqualTo(200);
            await().atMost(DEADLINE).until(() -> !server.isAlive());
            assertThat(StartStopIT.ownErrors(server.log())).isEmpty();
        }
    }

    @Test
    void aRequestInFlightWhenTheDrainBeginsIsAnsweredAfterItsWriteWasAcknowledged() throws Exception {
        try (ServerProcess server =
                ServerProcess.builder().env("MP_SHUTDOWN_DELAY", "3s").start()) {
            Http api = new Http(server.baseUri());
            Walk walk = new Walk(api);
            Walk.Monitor monitor = walk.createMonitor(SharedServer.uniqueId("inflight"));
            Walk.Reader reader = walk.subscribe(monitor, "agent:waiting");
            long next = walk.pull(reader, "?limit=100").json().get("next").asLong();
            walk.ack(reader, next);
            CompletableFuture<Http.Response> parked =
                    CompletableFuture.supplyAsync(() -> walk.pull(reader, "?wait=55"));
            await().during(Duration.ofMillis(500)).atMost(DEADLINE).until(() -> !parked.isDone());

            String body = "{\"type\":\"com.example.ci.run\",\"subject\":\"in-flight\",\"actor\":\"probe:ci\","
                    + "\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"status\":\"ok\"}}";
            byte[] bytes = body.getBytes(UTF_8);
            String head = "POST /mp/v0/monitors/" + monitor.id() + "/observations HTTP/1.1\r\n"
                    + "Host: 127.0.0.1:" + server.port() + "\r\n"
                    + "Authorization: Bearer " + monitor.ownerToken() + "\r\n"
                    + "Content-Type: application/json\r\n"
                    + "Content-Length: " + bytes.length + "\r\n\r\n";
            try (Socket socket = new Socket(server.baseUri().getHost(), server.port())) {
                socket.setSoTimeout((int) DEADLINE.toMillis());
                OutputStream out = socket.getOutputStream();
                server.signal("TERM");
                awaitNotReady(server);
                // The request begins during the delay ...
                out.write(head.getBytes(UTF_8));
                out.write(bytes, 0, 10);
                out.flush();
                // ... and is still in flight when the drain begins: the parked pull is answered then.
                Http.Response woken = parked.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
                assertThat(woken.json().get("observations")).isEmpty();
                out.write(bytes, 10, bytes.length - 10);
                out.flush();
                Raw answer = Raw.read(socket.getInputStream());
                assertThat(answer.status()).as(answer.body()).isEqualTo(201);
                assertThat(answer.header("connection")).isEqualToIgnoringCase("close");
                long seq = Json.MAPPER.readTree(answer.body()).get("seq").asLong();
                assertThat(seq).isEqualTo(next);

                await().atMost(DEADLINE).until(() -> !server.isAlive());
                server.restart();
                JsonNode page = walk.pull(reader, "?limit=100").json();
                assertThat(page.get("observations"))
                        .as("the answered publish is in the log at its seq after the restart")
                        .anySatisfy(o -> {
                            assertThat(o.get("id").asLong()).isEqualTo(seq);
                            assertThat(o.get("subject").asText()).isEqualTo("in-flight");
                        });
            }
        }
    }

    private static String get(String path, ServerProcess server) {
        return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + server.port() + "\r\n\r\n";
    }

    private static void awaitNotReady(ServerProcess server) {
        Http management = new Http(server.managementUri());
        await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            Http.Response r = management.get("/q/health/ready", null);
            assertThat(r.status()).as(r.body()).isEqualTo(503);
            assertThat(r.body().replaceAll("\\s", "")).contains("\"stopping\":true");
        });
    }

    /** One HTTP/1.1 exchange read byte by byte, to see the headers as sent and whether the server closed after it. */
    record Raw(int status, Map<String, String> headers, String body, boolean closed) {
        String header(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
        }

        static Raw exchange(URI base, String request, byte[] body) throws IOException {
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                socket.setSoTimeout((int) DEADLINE.toMillis());
                socket.getOutputStream().write(request.getBytes(UTF_8));
                if (body != null) {
                    socket.getOutputStream().write(body);
                }
                socket.getOutputStream().flush();
                return read(socket.getInputStream());
            }
        }

        /** Reads one answer (Content-Length or chunked), then whether the connection ends right after it. */
        static Raw read(InputStream in) throws IOException {
            String statusLine = line(in);
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, String> headers = new TreeMap<>();
            for (String l = line(in); !l.isEmpty(); l = line(in)) {
                int colon = l.indexOf(':');
                headers.put(
                        l.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        l.substring(colon + 1).trim());
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (headers.containsKey("content-length")) {
                body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                for (int size = Integer.parseInt(line(in).trim(), 16);
                        size > 0;
                        size = Integer.parseInt(line(in).trim(), 16)) {
                    body.write(in.readNBytes(size));
                    line(in);
                }
                line(in);
            }
            boolean closed;
            if ("close".equalsIgnoreCase(headers.get("connection"))) {
                try {
                    closed = in.read() == -1;
                } catch (java.net.SocketException e) {
                    closed = true;
                }
            } else {
                // A kept-alive connection: not waited on, which would take the server's idle timeout.
                closed = false;
            }
            return new Raw(status, headers, body.toString(UTF_8), closed);
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c == -1) {
                    throw new IOException("the connection ended inside an answer: " + line.toString(UTF_8));
                }
                if (c != '\r') {
                    line.write(c);
                }
            }
            return line.toString(UTF_8);
        }
    }
}
