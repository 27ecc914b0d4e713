package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of `./mp serve` during a stream of creates, at a different moment each round (issue 12, item 3): afterwards
 * every id tried either is a monitor whose seq 1 is its {@code configured} row, or can be created again; never an id
 * that answers 404 on GET and 409 on create, and never a lost create that was answered 201.
 */
class CreateCrashIT {
    private static final int THREADS = 6;
    private static final int ROUNDS = 4;

    @Test
    void everyCreateCutShortByKillNineIsWholeOrCompletedByItsRetry(@TempDir Path data) throws Exception {
        try (ServerProcess server =
                ServerProcess.builder().env("MP_DATA", data.toString()).start()) {
            Set<String> tried = ConcurrentHashMap.newKeySet();
            Map<String, Integer> answered = new ConcurrentHashMap<>();
            for (int round = 0; round < ROUNDS; round++) {
                createUntilKilled(server, round, tried, answered);
                server.restart();
            }

            // Each id checked on its own, several at a time: the checks of one id do not touch another's.
            Http http = new Http(server.baseUri());
            List<String> retried = Collections.synchronizedList(new ArrayList<>());
            ExecutorService checks = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (String id : tried) {
                    done.add(checks.submit(() -> {
                        if (check(http, id, answered.getOrDefault(id, 0))) {
                            retried.add(id);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    try {
                        f.get(5, TimeUnit.MINUTES);
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof AssertionError failed) {
                            throw failed;
                        }
                        throw e;
                    }
                }
            } finally {
                checks.shutdownNow();
            }
            System.out.printf(
                    "CreateCrashIT: %d ids tried, %d answered 201, %d completed by a retry%n",
                    tried.size(),
                    answered.values().stream().filter(s -> s == 201).count(),
                    retried.size());
        }
    }

    /**
     * One id after the rounds: a monitor whose seq 1 is its {@code configured} row (certainly so if its create was
     * answered 201), or a 404 that a create with the same body completes, whose token then owns it. True when it took
     * that retry.
     */
    private static boolean check(Http http, String id, int answered) {
        Http.Response got = http.get("/mp/v0/monitors/" + id, null);
        if (answered == 201) {
            assertThat(got.status())
                    .as("%s was answered 201: %s", id, got.body())
                    .isEqualTo(200);
        }
        if (got.status() == 200) {
            assertFirstRowIsConfigured(http, id);
            return false;
        }
        assertThat(got.status()).as("GET %s: %s", id, got.body()).isEqualTo(404);
        Http.Response again = http.post("/mp/v0/monitors", body(id), null);
        assertThat(again.status())
                .as("%s answers 404 on GET, so a create completes it: %s", id, again.body())
                .isEqualTo(201);
        assertThat(again.json().get("owner_token").asText()).isNotEmpty();
        assertThat(http.get("/mp/v0/monitors/" + id, null).status()).isEqualTo(200);
        assertFirstRowIsConfigured(http, id);
        // The retry's token owns it.
        Http.Response published = http.post(
                "/mp/v0/monitors/" + id + "/observations",
                "{\"type\":\"com.example.ci.run\",\"subject\":\"after\",\"data\":{}}",
                again.json().get("owner_token").asText());
        assertThat(published.status()).as(published.body()).isEqualTo(201);
        return true;
    }

    /** Creates monitors from several threads and kills the server once a round-dependent number were answered. */
    private static void createUntilKilled(
            ServerProcess server, int round, Set<String> tried, Map<String, Integer> answered)
            throws InterruptedException {
        Http http = new Http(server.baseUri());
        AtomicInteger created = new AtomicInteger();
        AtomicBoolean killed = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            pool.submit(() -> {
                for (int i = 0; !killed.get(); i++) {
                    String id = "cc-" + round + "-" + thread + "-" + i;
                    tried.add(id);
                    try {
                        Http.Response r = http.post("/mp/v0/monitors", body(id), null);
                        answered.put(id, r.status());
                        if (r.status() == 201) {
                            created.incrementAndGet();
                        }
                    } catch (RuntimeException e) {
                        return; // the server is gone
                    }
                }
            });
        }
        // A different moment in the stream each round: after 3, 7, 11, ... answered creates.
        int killAfter = 3 + 4 * round;
        await("%d creates answered in round %d".formatted(killAfter, round))
                .atMost(Duration.ofMinutes(3))
                .until(() -> created.get() >= killAfter);
        killed.set(true);
        server.kill9();
        pool.shutdown();
        assertThat(pool.awaitTermination(2, TimeUnit.MINUTES))
                .as("the clients stop once the server is gone")
                .isTrue();
    }

    private static void assertFirstRowIsConfigured(Http http, String id) {
        Http.Response sub = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + id + "\",\"subscriber\":\"agent:check\",\"capabilities\":[\"observe\"]}",
                null);
        assertThat(sub.status()).as(sub.body()).isEqualTo(201);
        Http.Response pulled = http.get(
                "/mp/v0/subscriptions/" + sub.json().at("/subscription/id").asText() + "/pull?cursor=1&limit=1",
                sub.json().get("token").asText());
        assertThat(pulled.status()).as(pulled.body()).isEqualTo(200);
        JsonNode first = pulled.json().at("/observations/0");
        assertThat(first.isMissingNode())
                .as("%s has a first row: %s", id, pulled.body())
                .isFalse();
        assertThat(first.get("id").asText()).as(pulled.body()).isEqualTo("1");
        assertThat(first.get("type").asText()).as(pulled.body()).isEqualTo("ai.mentu.monitor.configured");
        assertThat(first.at("/data/payload/after/id").asText()).isEqualTo(id);
    }

    private static String body(String id) {
        return "{\"id\":\"" + id + "\",\"visibility\":\"public\",\"types\":[\"com.example.ci.run\"]}";
    }
}
