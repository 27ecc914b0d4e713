package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slower half of {@link CrashRecoveryIT}, in a class of its own so the suite's test JVMs can run the two halves side
 * by side: the server as `./mp serve` runs it, with its own embedded broker on a data directory, killed with SIGKILL
 * and started again on the same data, then its reads of a long log and its state compared with what they were. Both
 * promises, each on its own monitor, share one kill and restart (a start is the suite's costliest step).
 */
class CrashRecoveryStateIT {
    @Test
    void afterKillNineTheStateIsTheStateBeforeAndTheWholeLogIsKnownFromItsNewestRecords(@TempDir Path data) {
        try (ServerProcess server = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .env("MP_TAIL_CACHE_ENTRIES", "4")
                .start()) {
            Http http = new Http(server.baseUri());
            Walk walk = new Walk(http);

            // A long log: seq 2 is the only record of its type; more than the 4096 records a restarted follower reads
            // follow it.
            Walk.Monitor m = walk.createMonitor("long");
            Http.Response rare = http.post(
                    "/mp/v0/monitors/long/observations",
                    "{\"type\":\"com.example.ci.rare\",\"subject\":\"first\",\"data\":{}}",
                    m.ownerToken());
            assertThat(rare.status()).as(rare.body()).isEqualTo(201);
            int count = 4200;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
            try {
                List<java.util.concurrent.Future<Long>> seqs = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    int n = i;
                    seqs.add(pool.submit(() -> walk.publish(m, "s-" + n)));
                }
                for (java.util.concurrent.Future<Long> f : seqs) {
                    f.get();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                pool.shutdownNow();
            }
            long head = 2 + count;
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(
                                    walk.state(m).json().get("as_of_seq").asLong())
                            .isEqualTo(head));

            // A folded state with a contradiction and an acked cursor.
            Walk.Monitor folded = walk.createMonitor("folded");
            for (int i = 0; i < 25; i++) {
                walk.publish(folded, "s-" + (i % 5));
            }
            http.post(
                    "/mp/v0/monitors/folded/observations",
                    "{\"type\":\"com.example.ci.run.contradiction\",\"subject\":\"s-1\",\"data\":{}}",
                    folded.ownerToken());
            Walk.Reader foldedReader = walk.subscribe(folded, "agent:folded");
            walk.ack(
                    foldedReader,
                    walk.pull(foldedReader, "?limit=7").json().get("next").asLong());
            JsonNode before = StateIT.stripped(walk.state(folded).json());
            assertThat(before.get("as_of_seq").asLong()).isEqualTo(28);

            server.kill9();
            server.restart();

            JsonNode after = StateIT.stripped(walk.state(folded).json());
            assertThat(after).isEqualTo(before);
            assertThat(after.at("/counters/observations").asLong()).isEqualTo(28);
            assertThat(after.get("contradictions_open").asLong()).isEqualTo(1);
            walk.publish(folded, "after");
            assertThat(walk.state(folded).json().at("/counters/observations").asLong())
                    .isEqualTo(29);

            JsonNode state = walk.state(m).json();
            assertThat(state.get("as_of_seq").asLong()).isEqualTo(head);
            assertThat(state.at("/counters/observations").asLong()).isEqualTo(head);
            Walk.Reader reader = walk.subscribe(m, "agent:rare");
            JsonNode pulled =
                    walk.pull(reader, "?cursor=1&types=com.example.ci.rare").json();
            assertThat(pulled.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly("2");
            Http.Response refused =
                    http.get("/mp/v0/subscriptions/" + reader.subscription() + "/pull?tiers=bogus", reader.token());
            Walk.assertRefused(refused, 400, "INVALID_FILTER");
            assertThat(refused.json().get("known_types"))
                    .as("a type only the start of the log carried is still known")
                    .extracting(JsonNode::asText)
                    .contains("com.example.ci.rare", "com.example.ci.run");
            assertThat(walk.publish(m, "after")).isEqualTo(head + 2);
        }
    }
}
