package io.monitorbackbone.conform;

import static io.monitorbackbone.conform.CheckClient.await;
import static io.monitorbackbone.conform.CheckClient.expect;
import static io.monitorbackbone.conform.CheckClient.refused;
import static io.monitorbackbone.conform.CheckClient.that;
import static io.monitorbackbone.conform.J.a;
import static io.monitorbackbone.conform.J.o;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Shared work: one holder per subject, idempotent claims, expiry and takeover, dead letters, claimable subjects. */
final class LeaseChecks {
    private static final Duration TAKEOVER_DEADLINE = Duration.ofSeconds(20);

    private LeaseChecks() {}

    static List<Check> all() {
        return List.of(
                new Check("C11", "claim without act → CAPABILITY_MISSING", LeaseChecks::c11),
                new Check("C12", "two concurrent claims: one 201, one 409 LEASE_HELD with holder", LeaseChecks::c12),
                new Check("C13", "complete after expiry and takeover → LEASE_LOST", LeaseChecks::c13),
                new Check("C20b", "claim idempotent (200, idempotent: true)", LeaseChecks::c20b),
                new Check("C24", "claim then complete succeeds", LeaseChecks::c24),
                new Check("C33", "dead letter stays dead", LeaseChecks::c33),
                new Check("C34", "claim of a subject the monitor never published → NOT_FOUND", LeaseChecks::c34));
    }

    /** A monitor that grants act, with these subjects published. */
    private static CheckClient.Monitor work(CheckClient api, String... subjects) {
        CheckClient.Monitor m = api.monitor(o("capabilities", a("observe", "act")));
        for (String subject : subjects) {
            api.note(m, subject);
        }
        return m;
    }

    /** A subscription granted act by the owner's token. */
    private static CheckClient.Reader worker(CheckClient api, CheckClient.Monitor m, String name) {
        CheckClient.Reader w =
                api.subscribe(m, o("subscriber", "agent:" + name, "capabilities", a("observe", "act")), m.ownerToken());
        that(
                w.served().path("capabilities").toString().contains("\"act\""),
                "the owner subscribed " + name + " with act but was granted "
                        + w.served().path("capabilities"));
        return w;
    }

    private static JsonNode claimed(Wire.Reply r) {
        expect(r, 201);
        return r.json().get("lease");
    }

    static String c11(CheckClient api) {
        String job = api.uid("job");
        CheckClient.Monitor m = work(api, job);
        CheckClient.Reader observer =
                api.subscribe(m, o("subscriber", "agent:observer", "capabilities", a("observe")), m.ownerToken());
        CheckClient.Reader actor = worker(api, m, "actor");

        Wire.Reply refused = api.lease(observer, "claim", o("subject", job));
        Wire.Reply granted = api.lease(actor, "claim", o("subject", job));

        refused(refused, 403, "CAPABILITY_MISSING");
        claimed(granted);
        return "a subscription with only observe is refused CAPABILITY_MISSING; one with act claims the same subject";
    }

    static String c12(CheckClient api) throws Exception {
        int rounds = 3;
        // Threads of its own: the common pool may have a single worker, which would make the claims take turns.
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 1; round <= rounds; round++) {
                String job = api.uid("job");
                CheckClient.Monitor m = work(api, job);
                CheckClient.Reader a = worker(api, m, "a");
                CheckClient.Reader b = worker(api, m, "b");

                CountDownLatch ready = new CountDownLatch(2);
                CountDownLatch go = new CountDownLatch(1);
                Future<Wire.Reply> first =
                        pool.submit(() -> together(ready, go, () -> api.lease(a, "claim", o("subject", job))));
                Future<Wire.Reply> second =
                        pool.submit(() -> together(ready, go, () -> api.lease(b, "claim", o("subject", job))));
                that(ready.await(30, TimeUnit.SECONDS), "the two claimers did not both start");
                go.countDown();
                List<Wire.Reply> both = List.of(first.get(60, TimeUnit.SECONDS), second.get(60, TimeUnit.SECONDS));

                Wire.Reply won =
                        both.stream().filter(r -> r.status() == 201).findFirst().orElse(null);
                Wire.Reply lost =
                        both.stream().filter(r -> r.status() != 201).findFirst().orElse(null);
                that(
                        won != null && lost != null,
                        "round " + round + ": two concurrent claims answered "
                                + both.get(0).describe() + " and " + both.get(1).describe()
                                + ", expected one 201 and one 409");
                refused(lost, 409, "LEASE_HELD");
                String holder = won.json().at("/lease/holder").asText();
                that(
                        !holder.isEmpty()
                                && holder.equals(lost.json().path("holder").asText()),
                        "round " + round + ": LEASE_HELD names holder "
                                + lost.json().path("holder") + " but the winner's lease is held by " + holder);
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        } finally {
            pool.shutdownNow();
        }
        return rounds + " rounds of two concurrent claims: one 201 each, the other LEASE_HELD naming the winner";
    }

    /** Both claimers arrive, then both go at once. */
    private static <T> T together(CountDownLatch ready, CountDownLatch go, Supplier<T> action)
            throws InterruptedException {
        ready.countDown();
        go.await();
        return action.get();
    }

    static String c13(CheckClient api) {
        String job = api.uid("job");
        CheckClient.Monitor m = work(api, job);
        CheckClient.Reader slow = worker(api, m, "slow");
        CheckClient.Reader fast = worker(api, m, "fast");
        claimed(api.lease(slow, "claim", o("subject", job, "lease_duration_seconds", 1)));

        long started = System.nanoTime();
        JsonNode taken = await("a takeover of the expired lease on " + job, TAKEOVER_DEADLINE, () -> {
            Wire.Reply r = api.lease(fast, "claim", o("subject", job));
            if (r.status() == 201) {
                return r.json().get("lease");
            }
            refused(r, 409, "LEASE_HELD");
            return null;
        });
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        Wire.Reply late = api.lease(slow, "complete", o("subject", job, "outcome", "done"));
        Wire.Reply holder = api.lease(fast, "complete", o("subject", job, "outcome", "done"));

        refused(late, 409, "LEASE_LOST");
        expect(holder, 200);
        return "a 1 s lease was taken over after " + waited + " ms (holder "
                + taken.path("holder").asText()
                + "); the old holder's complete is LEASE_LOST, the new holder's succeeds";
    }

    static String c20b(CheckClient api) {
        String job = api.uid("job");
        CheckClient.Monitor m = work(api, job);
        CheckClient.Reader w = worker(api, m, "w");

        Wire.Reply first = api.lease(w, "claim", o("subject", job));
        Wire.Reply again = api.lease(w, "claim", o("subject", job));

        JsonNode lease = claimed(first);
        that(
                !first.json().path("idempotent").asBoolean(true),
                first.describe() + " says idempotent: " + first.json().get("idempotent"));
        expect(again, 200);
        that(
                again.json().path("idempotent").asBoolean(false),
                again.describe() + " says idempotent: " + again.json().get("idempotent"));
        JsonNode same = again.json().get("lease");
        for (String field : List.of("holder", "acquire_time", "attempts", "lease_transitions")) {
            that(
                    lease.path(field).equals(same.path(field)),
                    "the repeated claim changed " + field + " from " + lease.path(field) + " to " + same.path(field));
        }
        return "the second claim by the holder answers 200 idempotent: true with the same lease";
    }

    static String c24(CheckClient api) {
        String job = api.uid("job");
        CheckClient.Monitor m = work(api, job);
        CheckClient.Reader w = worker(api, m, "w");
        CheckClient.Reader next = worker(api, m, "next");

        JsonNode lease = claimed(api.lease(w, "claim", o("subject", job)));
        Wire.Reply held = api.lease(next, "claim", o("subject", job));
        Wire.Reply completed = api.lease(w, "complete", o("subject", job, "outcome", "fixed"));
        Wire.Reply free = api.lease(next, "claim", o("subject", job));

        refused(held, 409, "LEASE_HELD");
        expect(completed, 200);
        claimed(free);
        List<JsonNode> rows = api.log(m, "&types=ai.mentu.monitor.lease");
        List<String> actions = rows.stream()
                .filter(r -> job.equals(r.at("/data/payload/subject").asText()))
                .map(r -> r.at("/data/payload/action").asText())
                .toList();
        that(
                actions.contains("claim") && actions.contains("complete"),
                "the lease rows for " + job + " are " + actions + ", expected a claim and a complete");
        return "claim (holder " + lease.path("holder").asText() + ") then complete answered 201 and 200, both logged; "
                + "the completed subject is free to claim again";
    }

    static String c33(CheckClient api) {
        String poison = api.uid("poison");
        String healthy = api.uid("healthy");
        CheckClient.Monitor m = work(api, poison, healthy);
        CheckClient.Reader w = worker(api, m, "w");
        CheckClient.Reader other = worker(api, m, "other");
        int limit = deliveryCountLimit(api, m);

        int attempts = 0;
        boolean dead = false;
        while (!dead) {
            attempts++;
            that(
                    attempts <= limit,
                    "after " + limit + " rejects (delivery_count_limit " + limit
                            + ") the subject is not dead-lettered");
            claimed(api.lease(w, "claim", o("subject", poison)));
            Wire.Reply rejected =
                    expect(api.lease(w, "reject", o("subject", poison, "reason", "flaky " + attempts)), 200);
            dead = rejected.json().path("dead_letter").asBoolean(false);
        }
        that(attempts == limit, "dead-lettered after " + attempts + " rejects, but delivery_count_limit is " + limit);

        refused(api.lease(w, "claim", o("subject", poison)), 409, "DEAD_LETTERED");
        refused(api.lease(other, "claim", o("subject", poison)), 409, "DEAD_LETTERED");
        refused(api.lease(w, "claim", o("subject", poison)), 409, "DEAD_LETTERED");
        claimed(api.lease(other, "claim", o("subject", healthy)));
        return "dead-lettered at reject " + attempts + " of " + limit
                + "; every later claim by anyone is DEAD_LETTERED; " + "another subject still claims";
    }

    /** The monitor's own limit if it serves one, else the server's, else the protocol's 5. */
    private static int deliveryCountLimit(CheckClient api, CheckClient.Monitor m) {
        JsonNode own = m.served().at("/limits/delivery_count_limit");
        if (own.canConvertToInt() && own.asInt() > 0) {
            return own.asInt();
        }
        JsonNode server = api.discover().at("/capabilities/leases/delivery_count_limit");
        return server.canConvertToInt() && server.asInt() > 0 ? server.asInt() : 5;
    }

    static String c34(CheckClient api) {
        String mine = api.uid("mine");
        String theirs = api.uid("theirs");
        CheckClient.Monitor m = work(api, mine);
        work(api, theirs);
        CheckClient.Reader w = worker(api, m, "w");

        Wire.Reply never = api.lease(w, "claim", o("subject", api.uid("never")));
        Wire.Reply elsewhere = api.lease(w, "claim", o("subject", theirs));
        Wire.Reply own = api.lease(w, "claim", o("subject", mine));

        refused(never, 404, "NOT_FOUND");
        refused(elsewhere, 404, "NOT_FOUND");
        claimed(own);
        return "a never-published subject and another monitor's subject are NOT_FOUND; the monitor's own subject claims";
    }
}
