package io.monitorbackbone.conform;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Requests to the server under test, over plain HTTP/1.1. Every answer is checked against the normative schemas before
 * a check sees it ({@link Served}), so a schema violation fails the check that received it.
 */
final class Wire {
    static final String BASE_PATH = "/mp/v0";
    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(CONNECT_TIMEOUT)
            .build();

    private final URI base;
    private final Map<String, Integer> validated = new TreeMap<>();
    private final Leftovers leftovers;

    /** An answer. {@code json} is null when the body is empty or not JSON; {@code path} starts with /mp/v0. */
    record Reply(String method, String path, int status, JsonNode json, String body, HttpHeaders headers) {

        String code() {
            return json != null && json.path("code").isTextual()
                    ? json.get("code").asText()
                    : null;
        }

        /** "POST /mp/v0/monitors → 400 INVALID_FILTER (invalid filter: typo)", for reasons. */
        String describe() {
            StringBuilder s = new StringBuilder(method)
                    .append(' ')
                    .append(path)
                    .append(" → ")
                    .append(status);
            if (code() != null) {
                s.append(' ').append(code());
                String error = json.path("error").asText("");
                if (!error.isEmpty()) {
                    s.append(" (").append(cut(error, 100)).append(')');
                }
            }
            return s.toString();
        }
    }

    /** The server's answers broke a normative schema. */
    static final class SchemaViolation extends CheckFailed {
        SchemaViolation(String reason) {
            super(reason);
        }
    }

    Wire(URI base) {
        this(base, null);
    }

    /** {@code leftovers}, when given, hears of every answer, so that what the run creates can be retired again. */
    Wire(URI base, Leftovers leftovers) {
        this.base = base;
        this.leftovers = leftovers;
    }

    URI base() {
        return base;
    }

    /** How many served objects of each schema this wire has validated, by schema name. */
    Map<String, Integer> validated() {
        return java.util.Collections.unmodifiableMap(new TreeMap<>(validated));
    }

    Reply get(String path, String bearer) {
        return send("GET", path, null, bearer, Map.of());
    }

    Reply post(String path, JsonNode body, String bearer) {
        return send("POST", path, body == null ? null : body.toString(), bearer, Map.of());
    }

    /** {@code path} is relative to /mp/v0 and may carry a query. */
    Reply send(String method, String path, String body, String bearer, Map<String, String> headers) {
        String full = BASE_PATH + path;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + full))
                .timeout(REQUEST_TIMEOUT)
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofString(body, UTF_8));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        headers.forEach(request::header);
        HttpResponse<String> response;
        try {
            response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(UTF_8));
        } catch (IOException e) {
            throw new CheckFailed("cannot reach the server: " + method + " " + base + full + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CheckFailed("interrupted during " + method + " " + full);
        }
        Reply reply = new Reply(
                method, full, response.statusCode(), parse(response.body()), response.body(), response.headers());
        if (leftovers != null) {
            leftovers.saw(reply, body);
        }
        validate(reply, stripQuery(path));
        return reply;
    }

    /**
     * A GET written by hand, because java.net.http will not send a Host header of our choosing. Returns the status line
     * and the body (null when the server closed without answering). Only for http:// servers.
     */
    Reply rawGet(String path, String host) {
        int port = base.getPort() != -1 ? base.getPort() : 80;
        String full = base.getRawPath() + BASE_PATH + path;
        try (Socket socket = new Socket(base.getHost(), port)) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + full + " HTTP/1.1\r\nHost: " + host
                            + "\r\nAccept: application/json\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] raw = in.readAllBytes();
            int split = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String head = new String(raw, 0, split < 0 ? raw.length : split, StandardCharsets.ISO_8859_1);
            String statusLine = head.lines().findFirst().orElse("");
            String[] words = statusLine.split(" ");
            if (words.length < 2 || !words[0].startsWith("HTTP/")) {
                throw new CheckFailed(
                        "GET " + full + " with Host: " + host + " got no HTTP answer: " + cut(statusLine, 80));
            }
            byte[] bytes = split < 0 ? new byte[0] : java.util.Arrays.copyOfRange(raw, split + 4, raw.length);
            if (head.toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked")) {
                bytes = unchunk(bytes);
            }
            String body = new String(bytes, UTF_8);
            Reply reply = new Reply(
                    "GET",
                    BASE_PATH + path + " (Host: " + host + ")",
                    Integer.parseInt(words[1]),
                    parse(body),
                    body,
                    null);
            validate(reply, stripQuery(path));
            return reply;
        } catch (IOException e) {
            throw new CheckFailed("cannot reach the server: GET " + full + " with Host: " + host + " failed: " + e);
        } catch (NumberFormatException e) {
            throw new CheckFailed("GET " + full + " with Host: " + host + " got an unreadable status line");
        }
    }

    private void validate(Reply reply, String path) {
        for (Served.Part part : Served.parts(reply.method(), path, reply.status())) {
            if (reply.json() == null) {
                throw new SchemaViolation(reply.describe() + ": the answer is not JSON, so not a valid " + part.schema()
                        + " (" + cut(reply.body(), 60) + ")");
            }
            var nodes = Served.at(reply.json(), part.pointer());
            if (nodes == null) {
                throw new SchemaViolation(
                        reply.describe() + ": no " + part.schema() + " at " + part.pointer() + " in the answer");
            }
            for (JsonNode node : nodes) {
                String problems = SchemaSet.violations(part.schema(), node);
                if (problems != null) {
                    throw new SchemaViolation(
                            reply.describe() + " served an invalid " + part.schema() + ": " + cut(problems, 200));
                }
                validated.merge(part.schema(), 1, Integer::sum);
            }
        }
    }

    private static String stripQuery(String path) {
        int q = path.indexOf('?');
        return q < 0 ? path : path.substring(0, q);
    }

    private static byte[] unchunk(byte[] body) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] crlf = "\r\n".getBytes(StandardCharsets.US_ASCII);
        int i = 0;
        while (i < body.length) {
            int eol = indexOf(body, crlf, i);
            if (eol < 0) {
                break;
            }
            int size;
            try {
                size = Integer.parseInt(
                        new String(body, i, eol - i, StandardCharsets.US_ASCII)
                                .trim()
                                .split(";")[0],
                        16);
            } catch (NumberFormatException e) {
                return body;
            }
            if (size == 0) {
                break;
            }
            int start = eol + 2;
            int end = Math.min(body.length, start + size);
            out.write(body, start, end - start);
            i = end + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        return indexOf(haystack, needle, 0);
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    static String cut(String s, int max) {
        if (s == null) {
            return "";
        }
        String one = s.replaceAll("\\s+", " ").trim();
        return one.length() <= max ? one : one.substring(0, max) + "…";
    }
}
