package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/** The protocol's REST binding as the commands use it: one request, one {@link Reply}, or {@link Unreachable}. */
final class MonitorClient {

    static final String PREFIX = "/mp/v0/";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(CONNECT_TIMEOUT)
            .build();
    private final String base;

    /** What the server answered; {@code json} is null when the body is empty or not JSON. */
    record Reply(int status, String body, JsonNode json) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        boolean serverFault() {
            return status >= 500;
        }

        String code() {
            return json == null ? null : Json.text(json, "code");
        }
    }

    /** No answer at all: refused, reset, timed out. The request may or may not have reached the server. */
    static final class Unreachable extends RuntimeException {
        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** {@code base} is the server's root, e.g. {@code http://127.0.0.1:8130}; a trailing {@code /mp/v0} is accepted. */
    MonitorClient(String base) {
        String b = base.strip();
        while (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        if (b.endsWith("/mp/v0")) {
            b = b.substring(0, b.length() - "/mp/v0".length());
        }
        this.base = b;
    }

    String base() {
        return base;
    }

    /** {@code path} is relative to {@code /mp/v0/}, already encoded (see {@link #segment}). */
    Reply get(String path, String bearer, Duration timeout) {
        return send(request(path, bearer, timeout).GET());
    }

    Reply get(String path, String bearer) {
        return get(path, bearer, DEFAULT_TIMEOUT);
    }

    Reply post(String path, JsonNode body, String bearer) {
        return post(path, body, bearer, DEFAULT_TIMEOUT);
    }

    Reply post(String path, JsonNode body, String bearer, Duration timeout) {
        String text;
        try {
            text = Json.MAPPER.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write the request body", e);
        }
        return send(request(path, bearer, timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(text, UTF_8)));
    }

    /** One path segment or query value, percent-encoded. */
    static String segment(String value) {
        return URLEncoder.encode(value, UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder request(String path, String bearer, Duration timeout) {
        URI uri;
        try {
            uri = URI.create(base + PREFIX + path);
        } catch (IllegalArgumentException e) {
            throw new Unreachable("not a server address: " + base, e);
        }
        HttpRequest.Builder builder =
                HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json");
        if (bearer != null && !bearer.isBlank()) {
            builder.header("Authorization", "Bearer " + bearer);
        }
        return builder;
    }

    private Reply send(HttpRequest.Builder request) {
        HttpRequest built = request.build();
        try {
            HttpResponse<String> response = client.send(built, HttpResponse.BodyHandlers.ofString(UTF_8));
            return new Reply(response.statusCode(), response.body(), parse(response.body()));
        } catch (HttpTimeoutException e) {
            throw new Unreachable(
                    "no answer from " + base + " within "
                            + built.timeout().map(Duration::toSeconds).orElse(0L) + " s",
                    e);
        } catch (ConnectException e) {
            // The JDK's ConnectException often carries no message: a refused connection is the usual cause.
            throw new Unreachable(
                    "cannot connect to " + base + " (" + (e.getMessage() == null ? "connection refused" : describe(e))
                            + ")",
                    e);
        } catch (IOException e) {
            throw new Unreachable("the connection to " + base + " failed (" + describe(e) + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted", e);
        }
    }

    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getMessage() == null) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return message == null || message.isBlank()
                ? root.getClass().getSimpleName()
                : message.lines().findFirst().orElse(message);
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return Json.MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
