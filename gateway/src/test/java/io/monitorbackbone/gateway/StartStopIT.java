package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.FreePorts;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the packaged server starts and stops: taken ports, the start-up log, and a stop with clients waiting. */
class StartStopIT {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    @Test
    void aTakenHttpPortIsOneClearLineAndNoReadyLine(@TempDir Path data) throws Exception {
        try (ServerSocket taken = listener()) {
            RefusedStart run = runJar(data, taken.getLocalPort(), FreePorts.next());

            assertThat(run.exit()).as(run.output()).isNotZero();
            assertThat(run.output())
                    .contains("HTTP port " + taken.getLocalPort())
                    .contains("already in use")
                    .doesNotContain("ready on");
            assertShortWithoutStackTrace(run.output());
            assertThat(data.resolve("kafka"))
                    .as("nothing started before the check")
                    .doesNotExist();
        }
    }

    @Test
    void aClientPropertyTheServerSetsPerClientIsOneClearLineBeforeAnythingStarts(@TempDir Path data) throws Exception {
        RefusedStart run =
                runJar(data, FreePorts.next(), FreePorts.next(), java.util.Map.of("MP_KAFKA_CLIENT_ID", "shared"));

        assertThat(run.exit()).as(run.output()).isNotZero();
        assertThat(run.output())
                .contains("MP_KAFKA_CLIENT_ID")
                .contains("cannot be passed through")
                .doesNotContain("ready on");
        assertShortWithoutStackTrace(run.output());
        assertThat(data.resolve("kafka")).as("nothing started before the check").doesNotExist();
    }

    @Test
    void aTakenManagementPortIsOneClearLineBeforeAnythingStarts(@TempDir Path data) throws Exception {
        try (ServerSocket taken = listener()) {
            RefusedStart run = runJar(
                    data,
                    FreePorts.next(),
                    FreePorts.next(),
                    java.util.Map.of("MP_MANAGEMENT_PORT", String.valueOf(taken.getLocalPort())));

            assertThat(run.exit()).as(run.output()).isNotZero();
            assertThat(run.output())
                    .contains("management port " + taken.getLocalPort())
                    .contains("MP_MANAGEMENT_PORT")
                    .contains("already in use")
                    .doesNotContain("ready on");
            assertShortWithoutStackTrace(run.output());
            assertThat(data.resolve("kafka"))
                    .as("nothing started before the check")
                    .doesNotExist();
        }
    }

    @Test
    void anUnknownRoleIsOneClearLineBeforeAnythingStarts(@TempDir Path data) throws Exception {
        assertRefusedBeforeAnythingStarts(
                data,
                "MP_ROLES",
                "gateway,proxy",
                "monitor-backbone cannot start: MP_ROLES: unknown role 'proxy'; the roles are"
                        + " gateway,projector,leases,bridge");
    }

    @Test
    void anInstanceIdKafkaWouldRefuseIsOneClearLineBeforeAnythingStarts(@TempDir Path data) throws Exception {
        assertRefusedBeforeAnythingStarts(
                data,
                "MP_INSTANCE_ID",
                "gateway 1",
                "monitor-backbone cannot start: MP_INSTANCE_ID 'gateway 1' is not a Kafka member id");
    }

    @Test
    void aLogProducerCountOutOfRangeIsOneClearLineBeforeAnythingStarts(@TempDir Path data) throws Exception {
        assertRefusedBeforeAnythingStarts(
                data,
                "MP_LOG_PRODUCERS",
                "0",
                "monitor-backbone cannot start: MP_LOG_PRODUCERS is 0; it must be 1 to 8");
    }

    /** A start with {@code variable=value} ends with {@code message} in a few lines, before anything started. */
    private static void assertRefusedBeforeAnythingStarts(Path data, String variable, String value, String message)
            throws Exception {
        RefusedStart run = runJar(data, FreePorts.next(), FreePorts.next(), java.util.Map.of(variable, value));

        assertThat(run.exit()).as(run.output()).isNotZero();
        assertThat(run.output()).contains(message).doesNotContain("ready");
        assertShortWithoutStackTrace(run.output());
        assertThat(data.resolve("kafka")).as("nothing started before the check").doesNotExist();
    }

    @Test
    void aTakenKafkaPortIsOneClearLine(@TempDir Path data) throws Exception {
        try (ServerSocket taken = listener()) {
            RefusedStart run = runJar(data, FreePorts.next(), taken.getLocalPort());

            assertThat(run.exit()).as(run.output()).isNotZero();
            assertThat(run.output())
                    .contains("port " + taken.getLocalPort())
                    .contains("embedded Kafka broker")
                    .contains("already in use")
                    .doesNotContain("ready on");
            assertShortWithoutStackTrace(run.output());
        }
    }

    /**
     * Ctrl-C with a parked long-poll and an open SSE stream: the pull is answered at once with what it has (an empty
     * page and its next), the stream ends, the process exits well before the 20 s the HTTP server would wait for
     * them, and nothing is logged as an ERROR. The start-up log names only paths that answer.
     */
    @Test
    void ctrlCAnswersAParkedPullAndEndsAStreamAtOnce() throws Exception {
        try (ServerProcess server = ServerProcess.builder().start()) {
            Http http = new Http(server.baseUri());
            Walk walk = new Walk(http);
            Walk.Monitor m = walk.createMonitor("stopping");
            Walk.Reader reader = walk.subscribe(m, "agent:waiting");
            String base = "/mp/v0/subscriptions/" + reader.subscription();
            http.post(base + "/ack", "{\"cursor\": 1000}", reader.token());
            long next =
                    http.get(base + "/pull", reader.token()).json().get("next").asLong();

            assertStartUpLogNamesOnlyPathsThatAnswer(server);

            CompletableFuture<HttpResponse<String>> pull = CLIENT.sendAsync(
                    request(server, base + "/pull?wait=50", reader.token()), HttpResponse.BodyHandlers.ofString());
            CompletableFuture<HttpResponse<String>> stream = CLIENT.sendAsync(
                    request(server, base + "/stream", reader.token()), HttpResponse.BodyHandlers.ofString());
            // Give both time to reach the server and park; they are answered whenever the stop comes.
            await().pollDelay(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !pull.isDone() && !stream.isDone());

            long stopping = System.nanoTime();
            int exit = server.interrupt();
            Duration took = Duration.ofNanos(System.nanoTime() - stopping);

            assertThat(exit).as("exit status after Ctrl-C").isIn(0, 130);
            HttpResponse<String> pulled = pull.get(30, TimeUnit.SECONDS);
            assertThat(pulled.statusCode()).as(pulled.body()).isEqualTo(200);
            JsonNode page = Json.MAPPER.readTree(pulled.body());
            assertThat(page.get("observations")).isEmpty();
            assertThat(page.get("next").asLong()).isEqualTo(next);
            assertThat(stream.get(30, TimeUnit.SECONDS).body()).startsWith("retry: 3000");
            // Not a speed bound: the parked pull asked to wait 50 s, so a stop that waited it out instead of answering
            // it takes at least that long, however loaded the machine.
            assertThat(took)
                    .as("a stop that waited out its parked pull (wait=50) takes 50 s or more; log:\n" + server.log())
                    .isLessThan(Duration.ofSeconds(45));
            assertThat(server.log()).contains("monitor-backbone stopped");
            assertThat(ownErrors(server.log()))
                    .as("ERROR lines of the server's own code and of Quarkus")
                    .isEmpty();
        }
    }

    /**
     * The log's ERROR lines except the embedded broker's and the Kafka clients' own ({@code org.apache.kafka.*},
     * {@code kafka.*}): on a busy machine the broker logs errors of its own (a controller queue that timed out a
     * heartbeat) that say nothing about how this process stops.
     */
    static java.util.List<String> ownErrors(String log) {
        return log.lines()
                .filter(line -> line.contains(" ERROR "))
                .filter(line -> !line.matches(".* ERROR +\\[(o\\.a\\.k|k)\\..*"))
                .toList();
    }

    private static void assertStartUpLogNamesOnlyPathsThatAnswer(ServerProcess server) throws Exception {
        String log = server.log();
        assertThat(log)
                .contains("monitor-backbone ready on " + server.baseUri() + "/mp/v0/discover")
                .doesNotContain("/mcp/sse");
        Matcher url = Pattern.compile("http://127\\.0\\.0\\.1:" + server.port() + "(/[^\\s,)]+)")
                .matcher(log);
        int named = 0;
        while (url.find()) {
            named++;
            HttpResponse<String> answer =
                    CLIENT.send(request(server, url.group(1), null), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode())
                    .as("GET " + url.group(1) + " named in the start-up log")
                    .isNotEqualTo(404);
        }
        assertThat(named).isGreaterThanOrEqualTo(2);
    }

    private static HttpRequest request(ServerProcess server, String path, String bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.baseUri() + path))
                .timeout(Duration.ofSeconds(90))
                .GET();
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return b.build();
    }

    private static void assertShortWithoutStackTrace(String output) {
        assertThat(output).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(output.lines().filter(l -> !l.isBlank()).count()).as(output).isLessThanOrEqualTo(3);
    }

    private static ServerSocket listener() throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return socket;
    }

    private static RefusedStart runJar(Path data, int port, int kafkaPort) throws Exception {
        return runJar(data, port, kafkaPort, java.util.Map.of());
    }

    private static RefusedStart runJar(Path data, int port, int kafkaPort, java.util.Map<String, String> env)
            throws Exception {
        java.util.Map<String, String> ports = new java.util.HashMap<>(env);
        ports.put("MP_PORT", String.valueOf(port));
        ports.put("MP_KAFKA_PORT", String.valueOf(kafkaPort));
        return RefusedStart.run(data, ports);
    }
}
