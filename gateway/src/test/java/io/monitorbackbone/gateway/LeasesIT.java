package io.monitorbackbone.gateway;

import static io.monitorbackbone.gateway.Walk.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.Schemas;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Shared work over REST, decided by the leases service the gateway runs. */
class LeasesIT {
    private final Http http = SharedServer.http();
    private final Walk walk = new Walk(http);

    private record Worker(String subscription, String token) {}

    private Worker worker(Walk.Monitor m, String name, String capabilities) {
        Http.Response r = http.post(
                "/mp/v0/subscriptions",
                "{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:" + name + "\",\"capabilities\":" + capabilities
                        + "}",
                m.ownerToken());
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return new Worker(
                r.json().at("/subscription/id").asText(), r.json().get("token").asText());
    }

    private Http.Response lease(Worker w, String action, String body) {
        return http.post("/mp/v0/subscriptions/" + w.subscription() + "/leases/" + action, body, w.token());
    }

    private Walk.Monitor workQueue(String... subjects) {
        Walk.Monitor m = walk.monitorWith("{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"]}");
        for (String subject : subjects) {
            walk.publish(m, subject);
        }
        return m;
    }

    @Test
    void c11ClaimingWithoutActIsRefused() {
        Walk.Monitor m = workQueue("job-1");
        Worker observer = worker(m, "observer", "[\"observe\"]");
        Worker actor = worker(m, "actor", "[\"observe\",\"act\"]");

        assertRefused(lease(observer, "claim", "{\"subject\":\"job-1\"}"), 403, "CAPABILITY_MISSING");
        assertThat(lease(actor, "claim", "{\"subject\":\"job-1\"}").status()).isEqualTo(201);
    }

    @Test
    void c12TwoConcurrentClaimsHaveOneWinner() throws Exception {
        Walk.Monitor m = workQueue("job-1");
        Worker a = worker(m, "a", "[\"observe\",\"act\"]");
        Worker b = worker(m, "b", "[\"observe\",\"act\"]");

        CompletableFuture<Http.Response> first =
                CompletableFuture.supplyAsync(() -> lease(a, "claim", "{\"subject\":\"job-1\"}"));
        CompletableFuture<Http.Response> second =
                CompletableFuture.supplyAsync(() -> lease(b, "claim", "{\"subject\":\"job-1\"}"));
        List<Http.Response> both = List.of(first.get(), second.get());

        assertThat(both).extracting(Http.Response::status).containsExactlyInAnyOrder(201, 409);
        Http.Response lost =
                both.stream().filter(r -> r.status() == 409).findFirst().orElseThrow();
        Http.Response won =
                both.stream().filter(r -> r.status() == 201).findFirst().orElseThrow();
        assertThat(lost.json().get("code").asText()).isEqualTo("LEASE_HELD");
        assertThat(lost.json().get("holder").asText())
                .isEqualTo(won.json().at("/lease/holder").asText());
        Schemas.assertValid("lease", won.json().get("lease"));
    }

    @Test
    void c13CompletingAfterExpiryAndTakeoverIsLeaseLost() {
        Walk.Monitor m = workQueue("job-1");
        Worker slow = worker(m, "slow", "[\"observe\",\"act\"]");
        Worker fast = worker(m, "fast", "[\"observe\",\"act\"]");
        assertThat(lease(slow, "claim", "{\"subject\":\"job-1\",\"lease_duration_seconds\":1}")
                        .status())
                .isEqualTo(201);

        await("the lease expires and another takes it")
                .atMost(Duration.ofSeconds(15))
                .until(() -> lease(fast, "claim", "{\"subject\":\"job-1\"}").status() == 201);
        Http.Response late = lease(slow, "complete", "{\"subject\":\"job-1\",\"outcome\":\"done\"}");

        assertRefused(late, 409, "LEASE_LOST");
        assertThat(lease(fast, "complete", "{\"subject\":\"job-1\",\"outcome\":\"done\"}")
                        .status())
                .isEqualTo(200);
    }

    @Test
    void c20bAndC24AClaimIsIdempotentAndCompletes() {
        Walk.Monitor m = workQueue("job-1");
        Worker w = worker(m, "w", "[\"observe\",\"act\"]");

        Http.Response claimed = lease(w, "claim", "{\"subject\":\"job-1\"}");
        Http.Response again = lease(w, "claim", "{\"subject\":\"job-1\"}");
        Http.Response completed = lease(
                w,
                "complete",
                "{\"subject\":\"job-1\",\"outcome\":\"fixed\",\"evidence\":[{\"source\":\"monitor:" + m.id()
                        + "\",\"id\":\"2\"}]}");

        assertThat(claimed.status()).isEqualTo(201);
        assertThat(claimed.json().get("idempotent").asBoolean()).isFalse();
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().get("idempotent").asBoolean()).isTrue();
        assertThat(completed.status()).as(completed.body()).isEqualTo(200);
        long seq = completed.json().get("seq").asLong();
        JsonNode row = walk.pull(new Walk.Reader(w.subscription(), w.token()), "?cursor=" + seq)
                .json()
                .at("/observations/0");
        assertThat(row.get("type").asText()).isEqualTo("ai.mentu.monitor.lease");
        assertThat(row.at("/data/payload/action").asText()).isEqualTo("complete");
        assertThat(row.at("/data/payload/outcome").asText()).isEqualTo("fixed");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(
                                walk.state(m).json().at("/counters/acted").asLong())
                        .isEqualTo(1));
    }

    @Test
    void c33ADeadLetterStaysDead() {
        Walk.Monitor m = workQueue("poison");
        Worker w = worker(m, "w", "[\"observe\",\"act\"]");
        Worker other = worker(m, "other", "[\"observe\",\"act\"]");

        JsonNode last = null;
        for (int attempt = 1; attempt <= 5; attempt++) {
            assertThat(lease(w, "claim", "{\"subject\":\"poison\"}").status())
                    .as("claim %d", attempt)
                    .isEqualTo(201);
            last = lease(w, "reject", "{\"subject\":\"poison\",\"reason\":\"flaky " + attempt + "\"}")
                    .json();
        }

        assertThat(last.get("dead_letter").asBoolean()).isTrue();
        assertRefused(lease(w, "claim", "{\"subject\":\"poison\"}"), 409, "DEAD_LETTERED");
        assertRefused(lease(other, "claim", "{\"subject\":\"poison\"}"), 409, "DEAD_LETTERED");
    }

    @Test
    void c34AndScopeOnlyTheMonitorsOwnSubjectsAndNoContentionAcrossMonitors() {
        Walk.Monitor first = workQueue("shared-subject");
        Walk.Monitor second = workQueue("shared-subject");
        Worker a = worker(first, "a", "[\"observe\",\"act\"]");
        Worker b = worker(second, "b", "[\"observe\",\"act\"]");

        assertRefused(lease(a, "claim", "{\"subject\":\"never-published\"}"), 404, "NOT_FOUND");
        assertThat(lease(a, "claim", "{\"subject\":\"shared-subject\"}").status())
                .isEqualTo(201);
        assertThat(lease(b, "claim", "{\"subject\":\"shared-subject\"}").status())
                .as("another monitor's lease")
                .isEqualTo(201);
    }

    @Test
    void anExpiredLeaseIsLoggedWithNoRequestArriving() {
        Walk.Monitor m = workQueue("job-1");
        Worker w = worker(m, "w", "[\"observe\",\"act\"]");
        lease(w, "claim", "{\"subject\":\"job-1\",\"lease_duration_seconds\":1}");

        // The scenario is silence: the expiry must happen on the leases service's own timer.
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);

        JsonNode rows = walk.pull(
                        new Walk.Reader(w.subscription(), w.token()), "?cursor=1&types=ai.mentu.monitor.lease")
                .json()
                .get("observations");
        assertThat(rows).extracting(o -> o.at("/data/payload/action").asText()).containsExactly("claim", "expired");
        assertThat(rows.get(1).get("actor").asText()).isEqualTo("system:sweep");
    }

    @Test
    void retiringTheSubscriptionReleasesItsLeases() {
        Walk.Monitor m = workQueue("job-1");
        Worker leaving = worker(m, "leaving", "[\"observe\",\"act\"]");
        Worker next = worker(m, "next", "[\"observe\",\"act\"]");
        assertThat(lease(leaving, "claim", "{\"subject\":\"job-1\"}").status()).isEqualTo(201);
        assertRefused(lease(next, "claim", "{\"subject\":\"job-1\"}"), 409, "LEASE_HELD");

        assertThat(http.post("/mp/v0/subscriptions/" + leaving.subscription() + "/retire", "{}", leaving.token())
                        .status())
                .isEqualTo(200);

        assertThat(lease(next, "claim", "{\"subject\":\"job-1\"}").status()).isEqualTo(201);
    }

    @Test
    void aMonitorSetsItsOwnDeliveryCountLimit() {
        Walk.Monitor m = walk.monitorWith(
                "{\"visibility\":\"public\",\"capabilities\":[\"observe\",\"act\"],\"limits\":{\"delivery_count_limit\":2}}");
        walk.publish(m, "poison");
        Worker w = worker(m, "w", "[\"observe\",\"act\"]");

        lease(w, "claim", "{\"subject\":\"poison\"}");
        JsonNode first =
                lease(w, "reject", "{\"subject\":\"poison\",\"reason\":\"1\"}").json();
        lease(w, "claim", "{\"subject\":\"poison\"}");
        JsonNode second =
                lease(w, "reject", "{\"subject\":\"poison\",\"reason\":\"2\"}").json();

        assertThat(first.get("dead_letter").asBoolean()).isFalse();
        assertThat(second.get("dead_letter").asBoolean()).isTrue();
        assertRefused(lease(w, "claim", "{\"subject\":\"poison\"}"), 409, "DEAD_LETTERED");
        assertThat(http.get("/mp/v0/monitors/" + m.id(), null)
                        .json()
                        .at("/limits/delivery_count_limit")
                        .asInt())
                .isEqualTo(2);
    }

    @Test
    void retiringTheMonitorReleasesItsLeases() {
        Walk.Monitor m = workQueue("job-1");
        Worker w = worker(m, "w", "[\"observe\",\"act\"]");
        assertThat(lease(w, "claim", "{\"subject\":\"job-1\"}").status()).isEqualTo(201);

        assertThat(http.post("/mp/v0/monitors/" + m.id() + "/retire", "{}", m.ownerToken())
                        .status())
                .isEqualTo(200);

        JsonNode rows = walk.pull(
                        new Walk.Reader(w.subscription(), w.token()), "?cursor=1&types=ai.mentu.monitor.lease")
                .json()
                .get("observations");
        assertThat(rows).extracting(o -> o.at("/data/payload/action").asText()).containsExactly("claim", "release");
    }

    @Test
    void theAdminSnapshotListsTheLeasesTheLeasesServiceHoldsAndDropsACompletedOne() {
        Walk.Monitor m = workQueue("job-1", "job-2");
        Worker w = worker(m, "snap", "[\"observe\",\"act\"]");
        assertThat(lease(w, "claim", "{\"subject\":\"job-1\"}").status()).isEqualTo(201);
        assertThat(lease(w, "claim", "{\"subject\":\"job-2\"}").status()).isEqualTo(201);

        await("the snapshot lists both leases")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(leasesOf(m))
                        .extracting(l -> l.get("subject").asText())
                        .containsExactly("job-1", "job-2"));
        JsonNode held = leasesOf(m).get(0);
        assertThat(held.get("holder").asText()).isEqualTo("sub:" + w.subscription());
        assertThat(held.get("monitor").asText()).isEqualTo(m.id());
        assertThat(held.toString()).doesNotContain(w.token()).doesNotContain(m.ownerToken());

        assertThat(lease(w, "complete", "{\"subject\":\"job-1\",\"outcome\":\"done\"}")
                        .status())
                .isEqualTo(200);

        await("the completed lease leaves the snapshot")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(leasesOf(m))
                        .extracting(l -> l.get("subject").asText())
                        .containsExactly("job-2"));
    }

    private List<JsonNode> leasesOf(Walk.Monitor m) {
        Http.Response snapshot = http.get("/mp/v0/admin/snapshot", SharedServer.ADMIN_TOKEN);
        assertThat(snapshot.status()).as(snapshot.body()).isEqualTo(200);
        List<JsonNode> out = new java.util.ArrayList<>();
        snapshot.json().get("leases").forEach(l -> {
            if (l.get("monitor").asText().equals(m.id())) {
                out.add(l);
            }
        });
        return out;
    }
}
