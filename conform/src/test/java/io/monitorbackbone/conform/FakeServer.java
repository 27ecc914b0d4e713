package io.monitorbackbone.conform;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A stand-in server on a free loopback port for the runner's own tests: the function answers each request (its body is the
 * exchange's {@code "body"} attribute); {@link #always} answers every request the same way.
 */
final class FakeServer implements AutoCloseable {

    record Answer(int status, String body) {}

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);

    FakeServer(Function<HttpExchange, Answer> answer) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            exchange.setAttribute("body", new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            Answer a = answer.apply(exchange);
            byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
            exchange.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.setExecutor(executor);
        server.start();
    }

    static FakeServer always(int status, String body) {
        return new FakeServer(exchange -> new Answer(status, body));
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
