package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The relay against a JDK HttpServer that says what it received: only the named header is gone on the way. */
class RuleBreakingProxyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final CountDownLatch RELEASE_STREAM = new CountDownLatch(1);
    private static HttpServer server;
    private static ExecutorService serverThreads;
    private static RuleBreakingProxy proxy;
    private static Http http;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        serverThreads = Executors.newCachedThreadPool();
        server.setExecutor(serverThreads);
        server.createContext("/echo", RuleBreakingProxyTest::echo);
        server.createContext("/refuse", exchange -> {
            byte[] body = "{\"code\":\"ORIGIN_REFUSED\",\"error\":\"no\",\"done\":[]}".getBytes(UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.getResponseHeaders().add("X-Answer", "refused");
            exchange.sendResponseHeaders(403, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/empty", exchange -> {
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.createContext("/stream", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            out.write("id: 1\ndata: first\n\n".getBytes(UTF_8));
            out.flush();
            try {
                RELEASE_STREAM.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            out.write("id: 2\ndata: second\n\n".getBytes(UTF_8));
            exchange.close();
        });
        server.start();
        proxy = RuleBreakingProxy.withoutRequestHeader(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "Origin");
        http = new Http(proxy.baseUri());
    }

    @AfterAll
    static void stop() {
        RELEASE_STREAM.countDown();
        proxy.close();
        server.stop(0);
        serverThreads.shutdownNow();
    }

    @Test
    void forwardsARequestWithoutTheHeaderAndEverythingElseAsSent() {
        int droppedBefore = proxy.dropped();

        Http.Response response = http.post(
                "/echo?a=1&b=two",
                "{\"x\":[1,2]}",
                "t0ken",
                Map.of("Origin", "https://evil.example", "X-Extra", "kept"));

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("method").asText()).isEqualTo("POST");
        assertThat(response.json().get("uri").asText()).isEqualTo("/echo?a=1&b=two");
        assertThat(response.json().get("origin").isNull()).as(response.body()).isTrue();
        assertThat(response.json().get("authorization").asText()).isEqualTo("Bearer t0ken");
        assertThat(response.json().get("extra").asText()).isEqualTo("kept");
        assertThat(response.json().get("contentType").asText()).isEqualTo("application/x-www-form-urlencoded");
        assertThat(response.json().get("host").asText())
                .isEqualTo("127.0.0.1:" + proxy.baseUri().getPort());
        assertThat(response.json().get("body").asText()).isEqualTo("{\"x\":[1,2]}");
        assertThat(response.headers().firstValue("X-Seen")).hasValue("echo");
        assertThat(proxy.dropped()).isEqualTo(droppedBefore + 1);
    }

    @Test
    void aRequestWithoutTheHeaderPassesAsItIs() {
        int droppedBefore = proxy.dropped();

        Http.Response response = http.get("/echo", null);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("method").asText()).isEqualTo("GET");
        assertThat(response.json().get("body").asText()).isEmpty();
        assertThat(proxy.dropped()).isEqualTo(droppedBefore);
    }

    @Test
    void aHostHeaderTheClientChoosesReachesTheServer() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", proxy.baseUri().getPort())) {
            socket.setSoTimeout((int) DEADLINE.toMillis());
            socket.getOutputStream()
                    .write(("GET /echo HTTP/1.1\r\nHost: evil.example\r\nOrigin: https://evil.example\r\n"
                                    + "Connection: keep-alive\r\n\r\n")
                            .getBytes(UTF_8));
            String raw = new String(socket.getInputStream().readAllBytes(), UTF_8);

            assertThat(raw).startsWith("HTTP/1.1 200 ").containsIgnoringCase("connection: close");
            ObjectNode seen = (ObjectNode) JSON.readTree(raw.substring(raw.indexOf("\r\n\r\n") + 4));
            assertThat(seen.get("host").asText()).isEqualTo("evil.example");
            assertThat(seen.get("origin").isNull()).isTrue();
        }
    }

    @Test
    void refusalsAndEmptyAnswersComeBackAsTheServerWroteThem() {
        Http.Response refused = http.get("/refuse", null);
        Http.Response empty = http.post("/empty", null, null);

        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.json().get("code").asText()).isEqualTo("ORIGIN_REFUSED");
        assertThat(refused.headers().firstValue("X-Answer")).hasValue("refused");
        assertThat(empty.status()).isEqualTo(204);
        assertThat(empty.body()).isEmpty();
    }

    @Test
    void manyRequestsInARowOnOneClientAllArrive() {
        int before = proxy.forwarded();
        for (int i = 0; i < 20; i++) {
            assertThat(http.get("/echo?i=" + i, null).json().get("uri").asText())
                    .isEqualTo("/echo?i=" + i);
        }
        assertThat(proxy.forwarded()).isEqualTo(before + 20);
    }

    @Test
    void aStreamedAnswerIsRelayedAsItArrivesWhileOtherRequestsAreServed() throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(DEADLINE).build();
        HttpResponse<InputStream> stream = client.send(
                HttpRequest.newBuilder(proxy.baseUri().resolve("/stream"))
                        .timeout(DEADLINE)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), UTF_8))) {
            assertThat(stream.statusCode()).isEqualTo(200);
            // The server holds the rest back until released: the first event can only have come through as it was sent.
            assertThat(lines.readLine()).isEqualTo("id: 1");
            assertThat(lines.readLine()).isEqualTo("data: first");
            assertThat(http.get("/echo", null).status()).isEqualTo(200);

            RELEASE_STREAM.countDown();

            assertThat(lines.readLine()).isEmpty();
            assertThat(lines.readLine()).isEqualTo("id: 2");
            assertThat(lines.readLine()).isEqualTo("data: second");
        }
    }

    private static void echo(HttpExchange exchange) throws IOException {
        ObjectNode seen = JSON.createObjectNode()
                .put("method", exchange.getRequestMethod())
                .put("uri", exchange.getRequestURI().toString())
                .put("origin", exchange.getRequestHeaders().getFirst("Origin"))
                .put("host", exchange.getRequestHeaders().getFirst("Host"))
                .put("authorization", exchange.getRequestHeaders().getFirst("Authorization"))
                .put("extra", exchange.getRequestHeaders().getFirst("X-Extra"))
                .put("contentType", exchange.getRequestHeaders().getFirst("Content-Type"))
                .put("body", new String(exchange.getRequestBody().readAllBytes(), UTF_8));
        byte[] body = JSON.writeValueAsBytes(seen);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.getResponseHeaders().add("X-Seen", "echo");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
