package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server as `./mp serve` runs it, with its own embedded broker on a data directory, killed with SIGKILL after
 * acknowledged writes (or stopped cleanly) and started again on the same data. Each promise below is set up on its own
 * monitor, and all the promises of one kind share one server's kill and restart: a start is the costliest step of the
 * suite, and one restart tests them all as well as one each.
 */
class CrashRecoveryIT {

    /** What a part checks once the server is back; it runs after the restart. */
    private interface AfterRestart {
        void check() throws Exception;
    }

    @Test
    void killNineLosesNothingThatWasAcknowledgedAndLeavesNoLeaseWithTwoHolders(@TempDir Path data, @TempDir Path tmp)
            throws Exception {
        List<String> jvm = new ArrayList<>(ServerProcess.JVM_OPTIONS);
        jvm.add("-Djava.io.tmpdir=" + tmp);
        try (ServerProcess server = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .jvmOptions(jvm)
                .start()) {
            Http http = new Http(server.baseUri());
            List<AfterRestart> checks = new ArrayList<>();
            checks.add(rocksDbLibraryCopiedOnce(data, tmp));
            checks.add(acknowledgedWritesAndCursors(http, data));
            checks.add(aDrainCutShort(http));
            // Last: it kills the server itself, while its claims are in flight.
            checks.add(claimsInFlight(http, server));
            server.restart();
            for (AfterRestart check : checks) {
                check.check();
            }
        }
    }

    @Test
    void aCleanStopAndStartKeepsEverythingAndCompactionKeepsTheSubjectIndex(@TempDir Path data) throws Exception {
        try (ServerProcess server = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .env("MP_ADMIN_TOKEN", "tok-admin")
                .start()) {
            Http http = new Http(server.baseUri());
            // First, on a server holding only its two monitors: a compaction counts every monitor's rows.
            compactingEveryMonitorMovesEachFloor(http);
            List<AfterRestart> checks = new ArrayList<>();
            checks.add(thePublishedSubjectIndexSurvivesCompaction(http));
            // After the last compaction, which would move this monitor's floor too.
            checks.add(aCleanStopKeepsCursorsAndTokens(http));

            int exit = server.stop();
            server.restart();

            assertThat(exit).as("exit status of a SIGTERM stop").isIn(0, 130, 143);
            for (AfterRestart check : checks) {
                check.check();
            }
        }
    }

    /**
     * RocksDB's native library (the lease stores') is copied into the data directory, where the next start replaces the
     * copy of a killed process, and not into the temporary directory, where each killed process used to leave one.
     */
    private static AfterRestart rocksDbLibraryCopiedOnce(Path data, Path tmp) {
        return () -> {
            assertThat(filesNamed(tmp, "librocksdbjni"))
                    .as("copies of RocksDB's library in the temporary directory")
                    .isEmpty();
            assertThat(filesNamed(data, "librocksdbjni"))
                    .as("copies of RocksDB's library in the data directory after a kill and a start")
                    .hasSize(1);
        };
    }

    private static List<Path> filesNamed(Path dir, String prefix) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix))
                    .toList();
        }
    }

    /** Three acknowledged publishes and an acked cursor: after the kill every row is there, and the cursor. */
    private static AfterRestart acknowledgedWritesAndCursors(Http http, Path data) {
        Walk walk = new Walk(http);
        Walk.Monitor m = walk.createMonitor("crash");
        List<Long> seqs =
                new ArrayList<>(List.of(walk.publish(m, "s-1"), walk.publish(m, "s-2"), walk.publish(m, "s-3")));
        Walk.Reader reader = walk.subscribe(m, "agent:survivor");
        JsonNode delivered = walk.pull(reader, "").json();
        assertThat(delivered.get("observations")).hasSize(5);
        walk.ack(reader, 3);
        return () -> {
            JsonNode replay = walk.pull(reader, "?cursor=1").json();
            assertThat(replay.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly("1", "2", "3", "4", "5");
            assertThat(replay.get("observations"))
                    .extracting(o -> o.path("subject").asText())
                    .containsSubsequence("s-1", "s-2", "s-3");
            assertThat(seqs).containsExactly(2L, 3L, 4L);

            JsonNode again = walk.pull(reader, "").json();
            assertThat(again.get("cursor").asLong()).isEqualTo(3);
            assertThat(again.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly("3", "4", "5");
            again.get("observations")
                    .forEach(o -> assertThat(o.get("redelivered").asBoolean())
                            .as("unacked comes back as a redelivery")
                            .isTrue());

            assertThat(walk.publish(m, "after-restart")).isEqualTo(6);
            assertThat(http.get("/mp/v0/monitors/crash", null)
                            .json()
                            .get("head")
                            .asLong())
                    .isEqualTo(6);
            assertThat(Files.isDirectory(data.resolve("kafka").resolve("mp.obs.crash-0")))
                    .isTrue();
        };
    }

    /** A drain cut short: what was acked never comes back, the page in flight comes back marked, nothing is lost. */
    private static AfterRestart aDrainCutShort(Http http) {
        Walk walk = new Walk(http);
        Walk.Monitor m = walk.createMonitor("drain");
        for (int i = 0; i < 40; i++) {
            walk.publish(m, "job-" + i);
        }
        Walk.Reader reader = walk.subscribe(m, "agent:drainer");
        java.util.Set<Long> acked = new java.util.TreeSet<>();
        for (int page = 0; page < 3; page++) {
            JsonNode pulled = walk.pull(reader, "?limit=7").json();
            pulled.get("observations").forEach(o -> acked.add(o.get("id").asLong()));
            walk.ack(reader, pulled.get("next").asLong());
        }
        JsonNode inFlight = walk.pull(reader, "?limit=7").json();
        List<Long> unacked = new ArrayList<>();
        inFlight.get("observations").forEach(o -> unacked.add(o.get("id").asLong()));
        return () -> {
            List<JsonNode> rest = new ArrayList<>();
            for (int guard = 0; guard < 20; guard++) {
                JsonNode pulled = walk.pull(reader, "?limit=10").json();
                if (pulled.get("observations").isEmpty()) {
                    break;
                }
                pulled.get("observations").forEach(rest::add);
                walk.ack(reader, pulled.get("next").asLong());
            }
            List<Long> after = rest.stream().map(o -> o.get("id").asLong()).toList();
            assertThat(after).doesNotContainAnyElementsOf(acked);
            assertThat(after).startsWith(unacked.toArray(Long[]::new));
            rest.stream()
                    .filter(o -> unacked.contains(o.get("id").asLong()))
                    .forEach(o -> assertThat(o.path("redelivered").asBoolean())
                            .as("unacked %s comes back marked", o.get("id"))
                            .isTrue());
            rest.stream()
                    .filter(o -> !unacked.contains(o.get("id").asLong()))
                    .forEach(o -> assertThat(o.has("redelivered"))
                            .as("first delivery of %s", o.get("id"))
                            .isFalse());
            java.util.Set<Long> everything = new java.util.TreeSet<>(acked);
            everything.addAll(after);
            assertThat(everything).hasSize(42).first().isEqualTo(1L);
            assertThat(everything).last().isEqualTo(42L);
        };
    }

    /**
     * Two workers claim the same 30 subjects at once and the server is killed while claims are in flight: no subject
     * was granted twice, and afterwards each subject has exactly one holder, the one granted before the kill if any.
     */
    private static AfterRestart claimsInFlight(Http http, ServerProcess server) throws Exception {
        String owner = http.post(
                        "/mp/v0/monitors",
                        "{\"id\":\"jobs\",\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}",
                        null)
                .json()
                .get("owner_token")
                .asText();
        int subjects = 30;
        for (int i = 0; i < subjects; i++) {
            http.post(
                    "/mp/v0/monitors/jobs/observations",
                    "{\"type\":\"demo.job\",\"subject\":\"job-" + i + "\"}",
                    owner);
        }
        JsonNode[] workers = new JsonNode[2];
        for (int w = 0; w < 2; w++) {
            workers[w] = http.post(
                            "/mp/v0/subscriptions",
                            "{\"monitor\":\"jobs\",\"subscriber\":\"agent:w" + w
                                    + "\",\"capabilities\":[\"observe\",\"act\"]}",
                            owner)
                    .json();
        }
        java.util.Map<Integer, Integer> granted = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.List<Integer> doubleGrants = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.List<java.util.concurrent.CompletableFuture<Void>> claims = new ArrayList<>();
        for (int i = 0; i < subjects; i++) {
            int subject = i;
            for (int w = 0; w < 2; w++) {
                int worker = w;
                claims.add(java.util.concurrent.CompletableFuture.runAsync(() -> {
                    try {
                        Http.Response r = http.post(
                                "/mp/v0/subscriptions/"
                                        + workers[worker].at("/subscription/id").asText() + "/leases/claim",
                                "{\"subject\":\"job-" + subject + "\"}",
                                workers[worker].get("token").asText());
                        if (r.status() == 201 && granted.put(subject, worker) != null) {
                            doubleGrants.add(subject);
                        }
                    } catch (RuntimeException killed) {
                        // the server died under this request: no answer, so nothing was promised
                    }
                }));
            }
        }
        await("some claims answered").atMost(Duration.ofSeconds(30)).until(() -> granted.size() >= 5);

        server.kill9();
        java.util.concurrent.CompletableFuture.allOf(claims.toArray(java.util.concurrent.CompletableFuture[]::new))
                .exceptionally(e -> null)
                .get(60, java.util.concurrent.TimeUnit.SECONDS);
        return () -> {
            assertThat(doubleGrants)
                    .as("subjects granted twice before the kill")
                    .isEmpty();
            for (int i = 0; i < subjects; i++) {
                int[] statuses = new int[2];
                for (int w = 0; w < 2; w++) {
                    statuses[w] = http.post(
                                    "/mp/v0/subscriptions/"
                                            + workers[w].at("/subscription/id").asText() + "/leases/claim",
                                    "{\"subject\":\"job-" + i + "\"}",
                                    workers[w].get("token").asText())
                            .status();
                }
                java.util.List<Integer> answer = java.util.List.of(statuses[0], statuses[1]);
                assertThat(answer)
                        .as("job-%d after restart", i)
                        .isSubsetOf(200, 201, 409)
                        .containsOnlyOnce(409);
                Integer holder = granted.get(i);
                if (holder != null) {
                    assertThat(statuses[holder])
                            .as("job-%d was granted to worker %d before the kill", i, holder)
                            .isEqualTo(200);
                }
            }
        };
    }

    /** A published row, a subscription and an acked cursor: all kept over a clean stop, and the owner's token. */
    private static AfterRestart aCleanStopKeepsCursorsAndTokens(Http http) {
        Walk walk = new Walk(http);
        Walk.Monitor m = walk.createMonitor("clean");
        walk.publish(m, "kept");
        Walk.Reader reader = walk.subscribe(m, "agent:kept");
        walk.ack(reader, 3);
        return () -> {
            JsonNode pulled = walk.pull(reader, "").json();
            assertThat(pulled.get("cursor").asLong()).isEqualTo(3);
            assertThat(pulled.get("observations"))
                    .extracting(o -> o.get("id").asText())
                    .containsExactly("3");
            assertThat(walk.publish(m, "still-mine")).isEqualTo(4);
        };
    }

    private static void compactingEveryMonitorMovesEachFloor(Http http) {
        Walk walk = new Walk(http);
        Walk.Monitor a = walk.createMonitor("a-log");
        Walk.Monitor b = walk.createMonitor("b-log");
        for (int i = 0; i < 3; i++) {
            walk.publish(a, "a" + i);
        }
        walk.publish(b, "b0");

        JsonNode compacted = http.post("/mp/v0/admin/compact", "{\"upto_seq\":3}", "tok-admin")
                .json();

        assertThat(compacted.at("/monitors/a-log/retention_floor").asLong()).isEqualTo(4);
        assertThat(compacted.at("/monitors/b-log/retention_floor").asLong())
                .as("b-log held only seqs 1 and 2")
                .isEqualTo(3);
        assertThat(compacted.get("compacted").asLong()).isEqualTo(5);
        assertThat(http.get("/mp/v0/monitors/a-log/state", null)
                        .json()
                        .get("retention_floor")
                        .asLong())
                .isEqualTo(4);
        assertThat(http.post("/mp/v0/admin/compact", "{\"upto_seq\":3}", "wrong")
                        .status())
                .isEqualTo(401);
    }

    /** A subject published before a compaction stays claimable after it and a restart; one never published does not. */
    private static AfterRestart thePublishedSubjectIndexSurvivesCompaction(Http http) {
        String owner = http.post(
                        "/mp/v0/monitors",
                        "{\"id\":\"indexed\",\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}",
                        null)
                .json()
                .get("owner_token")
                .asText();
        long seq = http.post(
                        "/mp/v0/monitors/indexed/observations",
                        "{\"type\":\"demo.job\",\"subject\":\"old-job\"}",
                        owner)
                .json()
                .get("seq")
                .asLong();
        JsonNode worker = http.post(
                        "/mp/v0/subscriptions",
                        "{\"monitor\":\"indexed\",\"subscriber\":\"agent:late\",\"capabilities\":[\"observe\",\"act\"]}",
                        owner)
                .json();
        // The publish wrote its subject mark before it was acknowledged; the leases service folds the mark into its
        // store at its next commit, which nothing outside it can observe, so the test gives it that time.
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);
        // Every monitor is compacted up to this seq: the two before it are already past it, so only this one's count.
        assertThat(http.post("/mp/v0/admin/compact", "{\"upto_seq\":" + seq + "}", "tok-admin")
                        .json()
                        .get("compacted")
                        .asLong())
                .isEqualTo(seq);
        return () -> {
            Http.Response claim = http.post(
                    "/mp/v0/subscriptions/" + worker.at("/subscription/id").asText() + "/leases/claim",
                    "{\"subject\":\"old-job\"}",
                    worker.get("token").asText());
            Http.Response never = http.post(
                    "/mp/v0/subscriptions/" + worker.at("/subscription/id").asText() + "/leases/claim",
                    "{\"subject\":\"never-published\"}",
                    worker.get("token").asText());
            assertThat(claim.status()).as(claim.body()).isEqualTo(201);
            assertThat(never.status()).isEqualTo(404);
        };
    }
}
