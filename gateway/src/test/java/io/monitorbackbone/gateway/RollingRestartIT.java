package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.LoadBalancer;
import io.monitorbackbone.testsupport.ScramKafka;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 14's rolling restart: two gateways on one broker (a SCRAM broker of the test's own, not a gateway's embedded
 * one, which a restart would take down) behind HAProxy, and clients that only know HAProxy: two publishers, two
 * long-polling pullers that ack what they got, and an SSE reader that reconnects with {@code Last-Event-ID}. Gateway
 * 1 is stopped (SIGTERM, its exit awaited), started again with the same instance id and awaited ready in HAProxy,
 * then gateway 2 the same way. No request may fail: every answer a success, and a connection error counts as a
 * failure. Afterwards every acknowledged publish is at its seq in what the pullers read, no cursor ever went back,
 * and the stream delivered every seq once, in order.
 */
class RollingRestartIT {
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    /** Longer than HAProxy needs to see a readiness DOWN (two checks 250 ms apart) on a busy machine. */
    private static final String SHUTDOWN_DELAY = "5s";

    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stopping = new AtomicBoolean();

    @Test
    void restartingOneOfTwoGatewaysAtATimeBehindHaproxyFailsNoRequest() throws Exception {
        try (ScramKafka kafka = ScramKafka.start()) {
            ExecutorService starts = Executors.newFixedThreadPool(2);
            Future<ServerProcess> first = starts.submit(() -> gateway(kafka, "gw-1"));
            Future<ServerProcess> second = starts.submit(() -> gateway(kafka, "gw-2"));
            starts.shutdown();
            try (ServerProcess gw1 = first.get(3, TimeUnit.MINUTES);
                    ServerProcess gw2 = second.get(3, TimeUnit.MINUTES);
                    LoadBalancer lb = LoadBalancer.builder()
                            .backend("gw1", gw1)
                            .backend("gw2", gw2)
                            .start()) {
                lb.awaitUp("gw1", DEADLINE);
                lb.awaitUp("gw2", DEADLINE);
                run(lb, gw1, gw2);
            }
        }
    }

    private static ServerProcess gateway(ScramKafka kafka, String instanceId) {
        return ServerProcess.builder()
                .env(kafka.serverEnv())
                .env("MP_INSTANCE_ID", instanceId)
                .env("MP_SHUTDOWN_DELAY", SHUTDOWN_DELAY)
                .start();
    }

    private void run(LoadBalancer lb, ServerProcess gw1, ServerProcess gw2) throws Exception {
        Http setup = new Http(lb.baseUri());
        String monitor = SharedServer.uniqueId("rolling");
        Http.Response created = setup.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + monitor
                        + "\",\"name\":\"rolling\",\"horizon\":\"minute\",\"capabilities\":[\"observe\"],"
                        + "\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]}",
                null);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String owner = created.json().get("owner_token").asText();
        List<Reader> readers = new ArrayList<>();
        for (String subscriber : List.of("agent:puller-1", "agent:puller-2", "agent:streamer")) {
            Http.Response sub = setup.post(
                    "/mp/v0/subscriptions",
                    "{\"monitor\":\"" + monitor + "\",\"subscriber\":\"" + subscriber + "\"}",
                    null);
            assertThat(sub.status()).as(sub.body()).isEqualTo(201);
            readers.add(new Reader(
                    sub.json().at("/subscription/id").asText(),
                    sub.json().get("token").asText()));
        }

        Map<Long, String> acknowledged = new ConcurrentHashMap<>();
        List<Puller> pullers =
                List.of(new Puller(lb.baseUri(), readers.get(0)), new Puller(lb.baseUri(), readers.get(1)));
        Streamer streamer = new Streamer(lb.baseUri(), readers.get(2));
        ScheduledExecutorService publishing = Executors.newScheduledThreadPool(2);
        ExecutorService reading = Executors.newFixedThreadPool(3);
        try {
            for (int p = 0; p < 2; p++) {
                Http http = new Http(lb.baseUri());
                String name = "p" + p;
                AtomicLong n = new AtomicLong();
                // A steady load rather than as fast as it goes: the restarts share the machine's two cores with it.
                publishing.scheduleWithFixedDelay(
                        () -> publish(http, monitor, owner, name + "-" + n.incrementAndGet(), acknowledged),
                        0,
                        25,
                        TimeUnit.MILLISECONDS);
            }
            pullers.forEach(reading::submit);
            reading.submit(streamer);

            awaitProgress(acknowledged, pullers, streamer, 20);
            restart(lb, gw1, "gw1");
            awaitProgress(acknowledged, pullers, streamer, 20);
            restart(lb, gw2, "gw2");
            awaitProgress(acknowledged, pullers, streamer, 20);

            publishing.shutdown();
            assertThat(publishing.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
            long last = acknowledged.keySet().stream()
                    .mapToLong(Long::longValue)
                    .max()
                    .orElseThrow();
            await("the pullers and the stream read up to the last acknowledged publish, seq " + last)
                    .atMost(DEADLINE)
                    .until(() -> pullers.stream().allMatch(p -> p.next.get() > last) && streamer.last.get() >= last);
        } finally {
            stopping.set(true);
            publishing.shutdownNow();
            reading.shutdown();
            if (!reading.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                failures.add("a reader did not stop");
                reading.shutdownNow();
            }
        }

        System.out.printf(
                "RollingRestartIT: %d publishes acknowledged, pullers read %s seqs, the stream %d, in %d connections;"
                        + " HAProxy %s%n",
                acknowledged.size(),
                pullers.stream().map(p -> p.seen.size()).toList(),
                streamer.seen.size(),
                streamer.connections.get(),
                lb.stats().entrySet().stream()
                        .map(e -> e.getKey() + " econ=" + e.getValue().get("econ") + " eresp="
                                + e.getValue().get("eresp") + " wretr="
                                + e.getValue().get("wretr")
                                + " wredis=" + e.getValue().get("wredis"))
                        .toList());
        assertThat(failures).as("failed requests").isEmpty();
        assertThat(streamer.connections.get())
                .as("the stream was ended by each stop and resumed")
                .isGreaterThanOrEqualTo(2);
        for (Puller puller : pullers) {
            acknowledged.forEach((seq, subject) -> assertThat(puller.seen.get(seq))
                    .as(
                            "the acknowledged publish %s at seq %d, as %s read it",
                            subject, seq, puller.reader.subscription())
                    .isEqualTo(subject));
        }
        long head = streamer.last.get();
        assertThat(List.copyOf(streamer.seen.keySet()))
                .as("the stream delivered every seq once, in order")
                .containsExactlyElementsOf(
                        java.util.stream.LongStream.rangeClosed(1, head).boxed().toList());
        acknowledged.forEach((seq, subject) -> assertThat(streamer.seen.get(seq))
                .as("seq %d on the stream", seq)
                .isEqualTo(subject));
    }

    /** SIGTERM, the exit awaited, the same process (port, data, instance id) started again and ready in HAProxy. */
    private void restart(LoadBalancer lb, ServerProcess gateway, String name) {
        int exit = gateway.stop();
        assertThat(exit).as("exit status after SIGTERM; log:\n" + gateway.log()).isIn(0, 143);
        assertThat(gateway.log()).contains("monitor-backbone stopped");
        lb.awaitDown(name, DEADLINE);
        gateway.restart();
        lb.awaitUp(name, DEADLINE);
    }

    /** Each client has made {@code more} steps since now: traffic flows through HAProxy around each restart. */
    private void awaitProgress(Map<Long, String> acknowledged, List<Puller> pullers, Streamer streamer, int more) {
        int published = acknowledged.size();
        List<Long> pulled = pullers.stream().map(p -> p.next.get()).toList();
        long streamed = streamer.last.get();
        await("traffic through HAProxy").atMost(DEADLINE).until(() -> {
            assertThat(failures).as("failed requests so far").isEmpty();
            boolean pulling = true;
            for (int i = 0; i < pullers.size(); i++) {
                pulling &= pullers.get(i).next.get() > pulled.get(i) + more;
            }
            return acknowledged.size() > published + more && pulling && streamer.last.get() > streamed + more;
        });
    }

    private void publish(Http http, String monitor, String owner, String subject, Map<Long, String> acknowledged) {
        try {
            Http.Response r = http.post(
                    "/mp/v0/monitors/" + monitor + "/observations",
                    "{\"type\":\"com.example.ci.run\",\"subject\":\"" + subject + "\",\"actor\":\"probe:ci\","
                            + "\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"n\":\"" + subject + "\"}}",
                    owner);
            if (r.status() != 201) {
                failures.add("publish " + subject + ": " + r.status() + " " + r.body());
                return;
            }
            acknowledged.put(r.json().get("seq").asLong(), subject);
        } catch (RuntimeException e) {
            failures.add("publish " + subject + ": " + e + (e.getCause() == null ? "" : " (" + e.getCause() + ")"));
        }
    }

    private record Reader(String subscription, String token) {}

    /** Long-polls, checks that seqs follow on and the cursor never goes back, and acks each page's next. */
    private final class Puller implements Runnable {
        final Reader reader;
        final Http http;
        final Map<Long, String> seen = new ConcurrentSkipListMap<>();
        final AtomicLong next = new AtomicLong(1);

        Puller(URI base, Reader reader) {
            this.reader = reader;
            this.http = new Http(base);
        }

        @Override
        public void run() {
            String path = "/mp/v0/subscriptions/" + reader.subscription();
            long cursor = 0;
            while (!stopping.get()) {
                try {
                    Http.Response page = http.get(path + "/pull?wait=3&limit=100", reader.token());
                    if (page.status() != 200) {
                        failures.add("pull: " + page.status() + " " + page.body());
                        continue;
                    }
                    JsonNode json = page.json();
                    long at = json.get("cursor").asLong();
                    if (at < cursor) {
                        failures.add("pull: the cursor went back from " + cursor + " to " + at);
                    }
                    cursor = Math.max(cursor, at);
                    for (JsonNode o : json.get("observations")) {
                        long seq = o.get("id").asLong();
                        if (seq != next.get() && !seen.containsKey(seq)) {
                            failures.add("pull: seq " + seq + " after " + (next.get() - 1) + ": skipped some");
                        }
                        seen.put(seq, o.path("subject").asText(""));
                        next.set(Math.max(next.get(), seq + 1));
                    }
                    long pageNext = json.get("next").asLong();
                    if (pageNext == at) {
                        continue;
                    }
                    Http.Response ack = http.post(path + "/ack", "{\"cursor\": " + pageNext + "}", reader.token());
                    if (ack.status() != 200) {
                        failures.add("ack " + pageNext + ": " + ack.status() + " " + ack.body());
                        continue;
                    }
                    long acked = ack.json().get("cursor").asLong();
                    if (acked < cursor) {
                        failures.add("ack: the cursor went back from " + cursor + " to " + acked);
                    }
                    cursor = Math.max(cursor, acked);
                } catch (RuntimeException e) {
                    failures.add("pull or ack: " + e + (e.getCause() == null ? "" : " (" + e.getCause() + ")"));
                }
            }
        }
    }

    /** Reads the SSE stream; when a stop ends it, reconnects with the last id it saw. */
    private final class Streamer implements Runnable {
        final Reader reader;
        final URI base;
        final HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        final Map<Long, String> seen = new ConcurrentSkipListMap<>();
        final AtomicLong last = new AtomicLong();
        final AtomicLong connections = new AtomicLong();

        Streamer(URI base, Reader reader) {
            this.base = base;
            this.reader = reader;
        }

        @Override
        public void run() {
            while (!stopping.get()) {
                HttpRequest.Builder request = HttpRequest.newBuilder(
                                base.resolve("/mp/v0/subscriptions/" + reader.subscription() + "/stream"))
                        .header("Authorization", "Bearer " + reader.token())
                        .timeout(Duration.ofSeconds(60));
                if (last.get() > 0) {
                    request.header("Last-Event-ID", String.valueOf(last.get()));
                }
                try {
                    HttpResponse<Stream<String>> response =
                            client.send(request.build(), HttpResponse.BodyHandlers.ofLines());
                    connections.incrementAndGet();
                    if (response.statusCode() != 200) {
                        failures.add("stream: " + response.statusCode() + " "
                                + String.join("\n", response.body().toList()));
                        continue;
                    }
                    try (Stream<String> lines = response.body()) {
                        read(lines.iterator());
                    }
                } catch (IOException | UncheckedIOException e) {
                    failures.add("stream: " + e + (e.getCause() == null ? "" : " (" + e.getCause() + ")"));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        /** Until the stream ends or the test stops; {@code id:} then {@code data:} make one observation. */
        private void read(Iterator<String> lines) {
            long id = 0;
            while (!stopping.get() && lines.hasNext()) {
                String line = lines.next();
                if (line.startsWith("id: ")) {
                    id = Long.parseLong(line.substring(4).trim());
                } else if (line.startsWith("data: ") && id > 0) {
                    JsonNode o;
                    try {
                        o = io.monitorbackbone.protocol.Json.MAPPER.readTree(line.substring(6));
                    } catch (IOException e) {
                        failures.add("stream: not JSON: " + line);
                        continue;
                    }
                    if (id != last.get() + 1) {
                        failures.add("stream: seq " + id + " after " + last.get());
                    }
                    seen.put(id, o.path("subject").asText(""));
                    last.set(Math.max(last.get(), id));
                    id = 0;
                } else if (line.startsWith("event: error")) {
                    failures.add("stream: an error event");
                }
            }
        }
    }
}
