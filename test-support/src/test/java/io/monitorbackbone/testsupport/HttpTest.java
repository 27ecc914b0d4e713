package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static HttpServer server;
    private static Http http;

    @BeforeAll
    static void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/echo", HttpTest::echo);
        server.createContext("/text", exchange -> reply(exchange, 200, "text/plain", "hello"));
        server.createContext("/moved", exchange -> {
            exchange.getResponseHeaders().add("Location", "/text");
            reply(exchange, 302, "text/plain", "");
        });
        server.start();
        http = new Http(URI.create("http://127.0.0.1:" + server.getAddress().getPort()));
    }

    @AfterAll
    static void stopServer() {
        server.stop(0);
    }

    @Test
    void postsFormEncodedByDefaultWithTheBearer() {
        Http.Response response = http.post("/echo", "{\"a\":1}", "t0ken");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("method").asText()).isEqualTo("POST");
        assertThat(response.json().get("contentType").asText()).isEqualTo("application/x-www-form-urlencoded");
        assertThat(response.json().get("authorization").asText()).isEqualTo("Bearer t0ken");
        assertThat(response.json().get("body").asText()).isEqualTo("{\"a\":1}");
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    }

    @Test
    void extraHeadersOverrideTheContentType() {
        Http.Response response = http.post("/echo", "{}", null, Map.of("content-type", "application/json"));

        assertThat(response.json().get("contentType").asText()).isEqualTo("application/json");
        assertThat(response.json().get("authorization").isNull()).isTrue();
    }

    @Test
    void getsWithoutABody() {
        Http.Response response = http.get("/echo", null);

        assertThat(response.json().get("method").asText()).isEqualTo("GET");
        assertThat(response.json().get("body").asText()).isEmpty();
    }

    @Test
    void leavesJsonNullWhenTheBodyIsNotJson() {
        Http.Response response = http.get("/text", null);

        assertThat(response.json()).isNull();
        assertThat(response.body()).isEqualTo("hello");
    }

    @Test
    void doesNotFollowRedirects() {
        Http.Response response = http.get("/moved", null);

        assertThat(response.status()).isEqualTo(302);
        assertThat(response.headers().firstValue("location")).hasValue("/text");
    }

    private static void echo(HttpExchange exchange) throws IOException {
        Map<String, Object> seen = new HashMap<>();
        seen.put("method", exchange.getRequestMethod());
        seen.put("contentType", exchange.getRequestHeaders().getFirst("Content-Type"));
        seen.put("authorization", exchange.getRequestHeaders().getFirst("Authorization"));
        seen.put("body", new String(exchange.getRequestBody().readAllBytes(), UTF_8));
        reply(exchange, 200, "application/json", JSON.writeValueAsString(seen));
    }

    private static void reply(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(UTF_8);
        exchange.getResponseHeaders().add("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }
}
