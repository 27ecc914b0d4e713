package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/** A small JSON-over-HTTP client for tests: no redirects followed, nothing retried. */
public final class Http {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    // What curl sends with -d, which is how the protocol's examples post: the server must accept it.
    private static final String DEFAULT_POST_TYPE = "application/x-www-form-urlencoded";

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(TIMEOUT)
            .build();
    private final URI base;
    private final Duration timeout;

    /** {@code json} is null when the body is empty or not JSON. */
    public record Response(int status, JsonNode json, String body, HttpHeaders headers) {}

    public Http(URI base) {
        this(base, TIMEOUT);
    }

    /** A client whose requests may take up to {@code timeout} to be answered (60 s for the others). */
    public Http(URI base, Duration timeout) {
        this.base = base;
        this.timeout = timeout;
    }

    public URI base() {
        return base;
    }

    public Response get(String path, String bearer) {
        return request("GET", path, null, headers(bearer, Map.of()));
    }

    public Response post(String path, String jsonBody, String bearer) {
        return post(path, jsonBody, bearer, Map.of());
    }

    /** {@code headers} win over the defaults, Content-Type included. */
    public Response post(String path, String jsonBody, String bearer, Map<String, String> headers) {
        Map<String, String> all = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        all.put("Content-Type", DEFAULT_POST_TYPE);
        all.putAll(headers(bearer, headers));
        return request("POST", path, jsonBody, all);
    }

    public Response request(String method, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(timeout)
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(body, UTF_8));
        headers.forEach(request::header);
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(UTF_8));
            return new Response(response.statusCode(), parse(response.body()), response.body(), response.headers());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + base.resolve(path) + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method + " " + path, e);
        }
    }

    private static Map<String, String> headers(String bearer, Map<String, String> extra) {
        Map<String, String> all = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        if (bearer != null) {
            all.put("Authorization", "Bearer " + bearer);
        }
        all.putAll(extra);
        return all;
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
