package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The numbered scenarios of issue 7. Each returns its numbers as JSON, with {@code errors}: the count of non-2xx
 * answers and failed requests among the measured calls (a setup call that fails stops the run instead).
 */
final class Scenarios {
    /** Counts for a full run and for {@code --quick}, which is a smoke test of the harness, not a measurement. */
    record Sizes(
            int seqWarm,
            int seqN,
            Duration warm,
            Duration window,
            int connections,
            long drainN,
            int wakeRounds,
            int claimWarm,
            int claimN,
            int flatSmall,
            long flatBig,
            int flatSamples,
            int memMonitors,
            int memSubs,
            Duration idleSettle,
            Duration idleWindow,
            int idleWindows,
            long bridgeOne,
            long bridgeEach,
            int bridgeWarm,
            int bridgeRounds,
            Duration bridgeJit) {
        static Sizes full() {
            return new Sizes(
                    2_000,
                    10_000,
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(20),
                    16,
                    100_000,
                    200,
                    20,
                    300,
                    1_000,
                    1_000_000,
                    2_000,
                    1_000,
                    10,
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(60),
                    2,
                    100_000,
                    6_250,
                    500,
                    300,
                    Duration.ofSeconds(180));
        }

        Sizes withIdleSettle(Duration settle) {
            return with(drainN, settle);
        }

        Sizes withBacklog(long n) {
            return with(n, idleSettle);
        }

        /** These sizes with the two a command line can set: scenario 3's backlog and scenario 9's settle. */
        private Sizes with(long drain, Duration settle) {
            return new Sizes(
                    seqWarm,
                    seqN,
                    warm,
                    window,
                    connections,
                    drain,
                    wakeRounds,
                    claimWarm,
                    claimN,
                    flatSmall,
                    flatBig,
                    flatSamples,
                    memMonitors,
                    memSubs,
                    settle,
                    idleWindow,
                    idleWindows,
                    bridgeOne,
                    bridgeEach,
                    bridgeWarm,
                    bridgeRounds,
                    bridgeJit);
        }

        static Sizes quick() {
            return new Sizes(
                    100,
                    300,
                    Duration.ofMillis(500),
                    Duration.ofSeconds(2),
                    16,
                    2_000,
                    10,
                    3,
                    20,
                    200,
                    2_000,
                    100,
                    20,
                    10,
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(5),
                    1,
                    2_000,
                    200,
                    20,
                    10,
                    Duration.ZERO);
        }
    }

    private final Sizes sizes;
    private final String run;
    private final Servers servers;

    Scenarios(Sizes sizes, String run, Servers servers) {
        this.sizes = sizes;
        this.run = run;
        this.servers = servers;
    }

    private String id(String scenario) {
        return scenario + "-" + run;
    }

    /** 1: one connection, one publish after another. */
    ObjectNode sequentialPublish() {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        try (BenchClient api = new BenchClient(t.base)) {
            BenchClient.Monitor m = api.create(id("seq"));
            byte[] body = BenchClient.observation("s-1");
            for (int i = 0; i < sizes.seqWarm(); i++) {
                api.publishOk(m, body);
            }
            Latencies lat = new Latencies();
            long errors = 0;
            double c0 = Load.clientCpuSeconds();
            double s0 = t.cpuSeconds();
            double j0 = t.jitCpuSeconds();
            long t0 = System.nanoTime();
            for (int i = 0; i < sizes.seqN(); i++) {
                long s = System.nanoTime();
                HttpConn.Response r = api.publish(m, body);
                long took = System.nanoTime() - s;
                if (r.ok()) {
                    lat.add(took);
                } else {
                    errors++;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            out.put("publishes_per_s", Math.round(lat.size() / seconds));
            lat.describe(out, "");
            out.put("errors", errors);
            out.put("warm_up", sizes.seqWarm());
            out.put("client_cpu_s", Latencies.round(Load.clientCpuSeconds() - c0));
            out.put("server_cpu_s", Latencies.round(t.cpuSeconds() - s0));
            out.put("server_jit_cpu_s", Latencies.round(t.jitCpuSeconds() - j0));
            out.put("reconnects", api.http.connects() - 1);
        }
        return out;
    }

    /** How long one round of {@link #warmServer} loads the server. */
    static final Duration WARM_ROUND = Duration.ofSeconds(10);
    /** The compilers have settled once a round's JIT CPU is at most this share of one core. */
    static final double SETTLED_JIT_SHARE = 0.05;

    /**
     * Loads the main server with what scenarios 1, 2, 11 and 12 send (single and batch publishes, large pages pulled)
     * in rounds of {@link #WARM_ROUND}, until a round's JIT compilers used at most {@link #SETTLED_JIT_SHARE} of a core
     * or {@code budget} has passed: a freshly started JVM compiles for minutes on two cores, and a window measured
     * meanwhile measures the compilers as much as the server (docs/benchmarks.md, "A warm server").
     */
    ObjectNode warmServer(Duration budget) {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        out.put("budget_s", budget.toSeconds());
        out.put("settled_when_jit_share_at_most", SETTLED_JIT_SHARE);
        com.fasterxml.jackson.databind.node.ArrayNode rounds = out.putArray("round_jit_cpu_s");
        BenchClient.Monitor single;
        BenchClient.Monitor batched;
        BenchClient.Sub reader;
        try (BenchClient api = new BenchClient(t.base)) {
            single = api.create(id("warm"));
            batched = api.create(id("warm-batch"));
            reader = api.subscribe(batched, "agent:warm", null);
        }
        byte[] body = BenchClient.observation("s-1");
        byte[] batch = BenchClient.batch("s", 100, 16);
        long t0 = System.nanoTime();
        boolean settled = false;
        Duration part = WARM_ROUND.dividedBy(2);
        while (!settled && System.nanoTime() - t0 < budget.toNanos()) {
            double j0 = t.jitCpuSeconds();
            long r0 = System.nanoTime();
            Load.run(
                    t.base, sizes.connections(), Duration.ZERO, part, t, (api, thread, i) -> api.publish(single, body));
            Load.run(
                    t.base,
                    BATCH_CONNECTIONS,
                    Duration.ZERO,
                    part,
                    t,
                    (api, thread, i) -> thread == 0
                            ? api.pull(reader, "limit=5000&large_pages=true&wait=0")
                            : allAccepted(api.publishBatch(batched, batch), 100));
            double jit = t.jitCpuSeconds() - j0;
            double seconds = (System.nanoTime() - r0) / 1e9;
            rounds.add(Latencies.round(jit));
            settled = jit <= SETTLED_JIT_SHARE * seconds;
        }
        out.put("seconds", Latencies.round((System.nanoTime() - t0) / 1e9));
        out.put("settled", settled);
        return out;
    }

    /** 2: closed-loop publish over 16 connections, to one monitor and to 16. */
    ObjectNode parallelPublish() {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        out.put("connections", sizes.connections());
        for (int monitors : new int[] {1, sizes.connections()}) {
            List<BenchClient.Monitor> ms = new ArrayList<>();
            try (BenchClient api = new BenchClient(t.base)) {
                for (int i = 0; i < monitors; i++) {
                    ms.add(api.create(id("par" + monitors + "-" + i)));
                }
            }
            byte[][] bodies = new byte[sizes.connections()][];
            for (int i = 0; i < bodies.length; i++) {
                bodies[i] = BenchClient.observation("s-" + i);
            }
            Load.Result r = Load.run(
                    t.base,
                    sizes.connections(),
                    sizes.warm(),
                    sizes.window(),
                    t,
                    (api, thread, i) -> api.publish(ms.get(thread % ms.size()), bodies[thread]));
            ObjectNode part = out.putObject(monitors == 1 ? "one_monitor" : monitors + "_monitors");
            r.describe(part);
            if (monitors == 1) {
                lastParallelMonitor = ms.get(0).id();
            }
        }
        return out;
    }

    /** The monitor scenario 2 loaded; scenario 8 copies its last record so the raw producer writes the same bytes. */
    String lastParallelMonitor;

    /** 3: a backlog read by one reader, pull then ack, until caught up. */
    ObjectNode drain() {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        BenchClient.Monitor m;
        try (BenchClient api = new BenchClient(t.base)) {
            m = api.create(id("drain"));
        }
        byte[] body = BenchClient.observation("s-1");
        double fill = Load.count(t.base, sizes.connections(), sizes.drainN(), (api, thread, i) -> api.publish(m, body));
        out.put("backlog", sizes.drainN());
        out.put("fill_publishes_per_s", Math.round(sizes.drainN() / fill));
        for (int limit : new int[] {100, 1000}) {
            drainOnce(out.putObject("limit_" + limit), t, m, "agent:drain-" + limit, "limit=" + limit + "&wait=0");
        }
        return out;
    }

    /** One subscription reads the monitor's log from seq 1, a pull with {@code query} then an ack, until caught up. */
    private static void drainOnce(ObjectNode part, Target t, BenchClient.Monitor m, String subscriber, String query) {
        try (BenchClient api = new BenchClient(t.base)) {
            BenchClient.Sub s = api.subscribe(m, subscriber, null);
            Latencies pulls = new Latencies();
            Latencies acks = new Latencies();
            long rows = 0;
            long errors = 0;
            int pages = 0;
            int largestPage = 0;
            double c0 = Load.clientCpuSeconds();
            double s0 = t.cpuSeconds();
            double j0 = t.jitCpuSeconds();
            long t0 = System.nanoTime();
            part.put("from_epoch_ms", System.currentTimeMillis());
            while (true) {
                long a = System.nanoTime();
                HttpConn.Response p = api.pull(s, query);
                long b = System.nanoTime();
                if (!p.ok()) {
                    errors++;
                    part.put("error_sample", p.status() + " " + BenchClient.abbreviated(p.text()));
                    break;
                }
                pulls.add(b - a);
                JsonNode page = BenchClient.json(p);
                int n = page.get("observations").size();
                rows += n;
                pages++;
                largestPage = Math.max(largestPage, n);
                long next = page.get("next").asLong();
                long c = System.nanoTime();
                HttpConn.Response ack = api.ack(s, next);
                acks.add(System.nanoTime() - c);
                if (!ack.ok()) {
                    errors++;
                    part.put("error_sample", ack.status() + " " + BenchClient.abbreviated(ack.text()));
                    break;
                }
                if (next > page.get("head").asLong()) {
                    break;
                }
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            part.put("to_epoch_ms", System.currentTimeMillis());
            part.put("observations_per_s", Math.round(rows / seconds));
            part.put("observations", rows);
            part.put("pages", pages);
            part.put("largest_page", largestPage);
            part.put("seconds", Latencies.round(seconds));
            part.put("pull_p50_ms", Latencies.round(pulls.percentileMs(50)));
            part.put("pull_p99_ms", Latencies.round(pulls.percentileMs(99)));
            part.put("ack_p50_ms", Latencies.round(acks.percentileMs(50)));
            part.put("errors", errors);
            part.put("client_cpu_s", Latencies.round(Load.clientCpuSeconds() - c0));
            part.put("server_cpu_s", Latencies.round(t.cpuSeconds() - s0));
            part.put("server_jit_cpu_s", Latencies.round(t.jitCpuSeconds() - j0));
        }
    }

    /** Connections of scenario 11 and of scenario 12's fill: a few clients, each sending large requests. */
    static final int BATCH_CONNECTIONS = 4;

    /**
     * 11: batch publish ({@code io.monitorbackbone/batch-publish}), closed loop over {@link #BATCH_CONNECTIONS}
     * connections to one monitor, batches of 100 and of 1,000; an answer with any item not accepted is an error.
     */
    ObjectNode batchPublish() {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        out.put("connections", BATCH_CONNECTIONS);
        for (int size : new int[] {100, 1_000}) {
            BenchClient.Monitor m;
            try (BenchClient api = new BenchClient(t.base)) {
                m = api.create(id("batch" + size));
            }
            byte[][] bodies = new byte[BATCH_CONNECTIONS][];
            for (int i = 0; i < bodies.length; i++) {
                bodies[i] = BenchClient.batch("s-" + i, size, 16);
            }
            Load.Result r = Load.run(
                    t.base,
                    BATCH_CONNECTIONS,
                    sizes.warm(),
                    sizes.window(),
                    t,
                    (api, thread, i) -> allAccepted(api.publishBatch(m, bodies[thread]), size));
            ObjectNode part = out.putObject("batch_" + size);
            r.describe(part);
            part.put("observations_per_s", Math.round(r.perSecond() * size));
            part.put(
                    "server_cpu_us_per_observation",
                    r.ok() == 0 ? 0 : Latencies.round(r.serverCpu() * 1e6 / (r.ok() * (double) size)));
        }
        return out;
    }

    /** The answer of a batch publish, as a failure (status 599) unless every one of its {@code n} items was accepted. */
    private static HttpConn.Response allAccepted(HttpConn.Response r, int n) {
        if (!r.ok()) {
            return r;
        }
        String text = r.text();
        return text.endsWith("\"accepted\":" + n + ",\"rejected\":0,\"failed\":0}")
                ? r
                : new HttpConn.Response(599, r.body());
    }

    /**
     * 12: the drain of scenario 3 with large pages ({@code io.monitorbackbone/large-pages}): a backlog filled by batch
     * publishes, read by one reader in pages of {@code max_limit} (200, what a client that knows only the protocol
     * gets) and then of 5,000 with {@code large_pages=true}, each by its own subscription.
     */
    ObjectNode largePageDrain() {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        BenchClient.Monitor m;
        try (BenchClient api = new BenchClient(t.base)) {
            m = api.create(id("drain-large"));
        }
        int per = 1_000;
        long batches = Math.max(1, sizes.drainN() / per);
        byte[] body = BenchClient.batch("s", per, 16);
        double fill = Load.count(
                t.base, BATCH_CONNECTIONS, batches, (api, thread, i) -> allAccepted(api.publishBatch(m, body), per));
        out.put("backlog", batches * per);
        out.put("fill_observations_per_s", Math.round(batches * per / fill));
        drainOnce(out.putObject("limit_200"), t, m, "agent:drain-200", "limit=200&wait=0");
        drainOnce(
                out.putObject("limit_5000_large_pages"),
                t,
                m,
                "agent:drain-5000",
                "limit=5000&large_pages=true&wait=0");
        return out;
    }

    /** 4: a pull parked with wait=20 on a caught-up subscription, then one publish on another connection. */
    ObjectNode wakeUp() {
        Target t = servers.main();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        try (BenchClient api = new BenchClient(t.base);
                BenchClient parked = new BenchClient(t.base)) {
            BenchClient.Monitor m = api.create(id("wake"));
            BenchClient.Sub s = api.subscribe(m, "agent:wake", null);
            catchUp(api, s);
            byte[] body = BenchClient.observation("s-1");
            Latencies fromAnswer = new Latencies();
            Latencies fromSent = new Latencies();
            long errors = 0;
            long negative = 0;
            String sample = null;
            for (int round = 0; round < sizes.wakeRounds() + 5; round++) {
                CompletableFuture<Long> answered = new CompletableFuture<>();
                CompletableFuture<HttpConn.Response> page = CompletableFuture.supplyAsync(() -> {
                    HttpConn.Response r = parked.pull(s, 50, 20);
                    answered.complete(System.nanoTime());
                    return r;
                });
                sleep(100); // long enough for the pull to have read nothing and parked on the tail
                long sent = System.nanoTime();
                HttpConn.Response pub = api.publish(m, body);
                long published = System.nanoTime();
                HttpConn.Response r;
                long woke;
                try {
                    r = page.get(30, TimeUnit.SECONDS);
                    woke = answered.get();
                } catch (Exception e) {
                    throw new BenchError("the parked pull did not answer", e);
                }
                JsonNode json = r.ok() ? BenchClient.json(r) : null;
                if (!pub.ok() || json == null || json.get("observations").isEmpty()) {
                    errors++;
                    sample = !pub.ok()
                            ? "publish " + pub.status() + " " + BenchClient.abbreviated(pub.text())
                            : "pull " + r.status() + " " + BenchClient.abbreviated(r.text());
                    catchUp(api, s);
                    continue;
                }
                BenchClient.must(api.ack(s, json.get("next").asLong()), "ack");
                if (round < 5) {
                    continue; // warm-up rounds
                }
                fromAnswer.add(woke - published);
                fromSent.add(woke - sent);
                negative += woke < published ? 1 : 0;
            }
            fromAnswer.describe(out, "after_publish_answered_");
            fromSent.describe(out, "after_publish_sent_");
            out.put("pull_answered_before_publish", negative);
            out.put("errors", errors);
            if (sample != null) {
                out.put("error_sample", sample);
            }
        }
        return out;
    }

    static void catchUp(BenchClient api, BenchClient.Sub s) {
        while (true) {
            JsonNode page = BenchClient.must(api.pull(s, 200, 0), "pull");
            long next = page.get("next").asLong();
            BenchClient.must(api.ack(s, next), "ack");
            if (next > page.get("head").asLong()) {
                return;
            }
        }
    }

    /** 5: lease claims of fresh subjects one after another, on one gateway and alternating over two on one broker. */
    ObjectNode leaseClaims() {
        ObjectNode out = BenchClient.JSON.createObjectNode();
        Target first = servers.main();
        claims(out.putObject("one_gateway"), List.of(first), id("lease1"));
        Target second = servers.second();
        if (second == null) {
            out.putObject("two_gateways").put("skipped", "no second gateway: give --kafka with --base");
            return out;
        }
        claims(out.putObject("two_gateways"), List.of(first, second), id("lease2"));
        servers.stop(second);
        return out;
    }

    private void claims(ObjectNode out, List<Target> gateways, String monitor) {
        int total = sizes.claimWarm() + sizes.claimN();
        List<BenchClient> apis =
                gateways.stream().map(g -> new BenchClient(g.base)).toList();
        try {
            BenchClient api = apis.get(0);
            BenchClient.Monitor m = api.create(monitor, "[\"observe\",\"act\"]");
            for (int i = 0; i < total + apis.size(); i++) {
                api.publishOk(m, BenchClient.observation("job-" + i));
            }
            BenchClient.Sub s = api.subscribe(m, "agent:worker", "[\"observe\",\"act\"]");
            // Each gateway's follower and the leases service learn the subscription and subjects within a second or
            // two.
            for (int g = 0; g < apis.size(); g++) {
                String subject = "job-" + (total + g);
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                HttpConn.Response r = apis.get(g).claim(s, subject);
                while (!r.ok() && System.nanoTime() < until) {
                    sleep(200);
                    r = apis.get(g).claim(s, subject);
                }
                BenchClient.must(r, "the first claim on gateway " + (g + 1));
            }
            Latencies lat = new Latencies();
            long errors = 0;
            String sample = null;
            double s0 = gateways.stream().mapToDouble(Target::cpuSeconds).sum();
            for (int i = 0; i < total; i++) {
                long a = System.nanoTime();
                HttpConn.Response r = apis.get(i % apis.size()).claim(s, "job-" + i);
                long took = System.nanoTime() - a;
                if (!r.ok()) {
                    errors++;
                    sample = r.status() + " " + BenchClient.abbreviated(r.text());
                } else if (i >= sizes.claimWarm()) {
                    lat.add(took);
                }
            }
            lat.describe(out, "");
            out.put("errors", errors);
            if (sample != null) {
                out.put("error_sample", sample);
            }
            out.put(
                    "server_cpu_s",
                    Latencies.round(
                            gateways.stream().mapToDouble(Target::cpuSeconds).sum() - s0));
        } finally {
            apis.forEach(BenchClient::close);
        }
    }

    /** 6: publish and state latency on a monitor with a small log and on one with a large log, interleaved. */
    ObjectNode flatness() {
        Target t = servers.flat();
        ObjectNode out = BenchClient.JSON.createObjectNode();
        BenchClient.Monitor small;
        BenchClient.Monitor big;
        try (BenchClient api = new BenchClient(t.base)) {
            small = api.create(id("flat-small"));
            big = api.create(id("flat-big"));
        }
        byte[] body = BenchClient.observation("s-1");
        double fillSmall =
                Load.count(t.base, sizes.connections(), sizes.flatSmall(), (api, th, i) -> api.publish(small, body));
        // The large log: a first part published over HTTP, the rest (when the broker is known) appended by the Kafka
        // producer as copies of the gateway's own last record, which takes a minute instead of many.
        long viaHttp = t.kafka == null
                ? sizes.flatBig()
                : Math.min(sizes.flatBig(), Math.max(sizes.flatSmall(), sizes.flatBig() / 100));
        double fillBig = Load.count(t.base, sizes.connections(), viaHttp, (api, th, i) -> api.publish(big, body));
        out.put("big_log_published_over_http", viaHttp);
        if (viaHttp < sizes.flatBig()) {
            fillBig += RawProducer.fill(t.kafka, big.id(), sizes.flatBig() - viaHttp);
        }
        out.put("small_log", sizes.flatSmall());
        out.put("big_log", sizes.flatBig());
        out.put("fill_big_seconds", Latencies.round(fillBig));
        out.put("fill_small_seconds", Latencies.round(fillSmall));
        Latencies pubSmall = new Latencies();
        Latencies pubBig = new Latencies();
        Latencies stateSmall = new Latencies();
        Latencies stateBig = new Latencies();
        long errors = 0;
        try (BenchClient api = new BenchClient(t.base)) {
            long waited = System.nanoTime();
            awaitFolded(api, small);
            awaitFolded(api, big);
            out.put("fold_wait_s", Latencies.round((System.nanoTime() - waited) / 1e9));
            for (int i = 0; i < 200; i++) { // warm-up of both paths on both monitors
                api.publish(small, body);
                api.publish(big, body);
                api.state(small);
                api.state(big);
            }
            int rounds = 10;
            int per = Math.max(1, sizes.flatSamples() / rounds);
            for (int round = 0; round < rounds; round++) {
                for (BenchClient.Monitor m : List.of(small, big)) {
                    for (int i = 0; i < per; i++) {
                        long a = System.nanoTime();
                        boolean ok = api.publish(m, body).ok();
                        long took = System.nanoTime() - a;
                        errors += ok ? 0 : 1;
                        if (ok) {
                            (m == small ? pubSmall : pubBig).add(took);
                        }
                    }
                    for (int i = 0; i < per; i++) {
                        long a = System.nanoTime();
                        boolean ok = api.state(m).ok();
                        long took = System.nanoTime() - a;
                        errors += ok ? 0 : 1;
                        if (ok) {
                            (m == small ? stateSmall : stateBig).add(took);
                        }
                    }
                }
            }
        }
        pubSmall.describe(out, "publish_small_");
        pubBig.describe(out, "publish_big_");
        stateSmall.describe(out, "state_small_");
        stateBig.describe(out, "state_big_");
        out.put("publish_p50_change_pct", changePct(pubSmall, pubBig));
        out.put("state_p50_change_pct", changePct(stateSmall, stateBig));
        out.put("errors", errors);
        servers.stop(t);
        return out;
    }

    private static double changePct(Latencies small, Latencies big) {
        return Math.round((big.percentileMs(50) / small.percentileMs(50) - 1) * 1000) / 10.0;
    }

    /** Until the state covers the log's head, so the comparison is of serving a state, not of catching up. */
    private static void awaitFolded(BenchClient api, BenchClient.Monitor m) {
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (System.nanoTime() < until) {
            JsonNode s = BenchClient.must(api.state(m), "state of " + m.id());
            if (s.path("as_of_seq").asLong() >= s.path("head").asLong()) {
                return;
            }
            sleep(500);
        }
        throw new BenchError("the state of " + m.id() + " did not reach the head within 10 minutes");
    }

    /** 7: RSS of an all-in-one JVM and of a gateway on its broker, idle and with many monitors and subscriptions. */
    ObjectNode memory() {
        ObjectNode out = BenchClient.JSON.createObjectNode();
        Servers.Pair pair = servers.memoryPair();
        if (pair == null) {
            out.put("skipped", "needs servers this run starts (not --base)");
            return out;
        }
        try (pair) {
            sleep(5_000); // past start-up's burst of allocation and compilation
            rss(out.putObject("idle"), pair);
            int monitors = sizes.memMonitors();
            int subs = sizes.memSubs();
            out.put("monitors", monitors);
            out.put("subscriptions_per_monitor", subs);
            String prefix = id("mem");
            double seconds = Load.count(pair.allInOne().base, sizes.connections(), monitors, (api, th, i) -> {
                BenchClient.Monitor m = api.create(prefix + "-" + i);
                HttpConn.Response last = null;
                for (int s = 0; s < subs; s++) {
                    last = api.http.post(
                            BenchClient.BASE + "/subscriptions",
                            null,
                            ("{\"monitor\":\"" + m.id() + "\",\"subscriber\":\"agent:r" + s + "\"}")
                                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    if (!last.ok()) {
                        return last;
                    }
                }
                return last;
            });
            out.put("load_seconds", Latencies.round(seconds));
            try (BenchClient gw = new BenchClient(pair.gateway().base)) {
                long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (!gw.http
                                .get(BenchClient.BASE + "/monitors/" + prefix + "-" + (monitors - 1), null)
                                .ok()
                        && System.nanoTime() < until) {
                    sleep(500);
                }
            }
            sleep(5_000);
            rss(out.putObject("loaded"), pair);
            pair.fullGc();
            sleep(3_000);
            rss(out.putObject("loaded_after_full_gc"), pair);
            out.put("errors", 0);
        }
        return out;
    }

    /**
     * 9: a fresh server with all roles and its embedded broker, ready and left alone for a while, then nothing but
     * its own timers and polls: its CPU seconds over each idle window as a share of one core, by thread group and by
     * thread. Then, as a cluster runs it, a fresh server with all roles on a broker of its own process (the bare broker
     * below, {@code KAFKA_BOOTSTRAP_SERVERS}), settled and measured the same way: the server's share and its broker's.
     */
    ObjectNode idle() {
        ObjectNode out = BenchClient.JSON.createObjectNode();
        Target t = servers.fresh();
        if (t == null) {
            out.put("skipped", "needs a server this run starts (not --base)");
            return out;
        }
        // Beside it, of the same age: its broker alone, with no client (BareBroker), the floor of an all-in-one server.
        try (BareBroker bare = BareBroker.start(servers.jvmOptions())) {
            sleep(sizes.idleSettle().toMillis()); // past start-up's burst of compilation and the first rebalances
            out.put("settle_s", sizes.idleSettle().toSeconds());
            out.put("window_s", sizes.idleWindow().toSeconds());
            idleWindows(out, t, bare, "bare_broker");
            servers.stop(t);
            ObjectNode own = out.putObject("on_a_broker_of_its_own");
            if (servers.reused()) {
                own.put("skipped", "a quick run starts no server on a broker of its own");
            } else {
                // The bare broker, settled by now, becomes this server's: its share is now the broker's with a client.
                Target s = servers.onBroker(Target.broker(bare.clientProperties()));
                try {
                    sleep(sizes.idleSettle().toMillis());
                    own.put("settle_s", sizes.idleSettle().toSeconds());
                    own.put("window_s", sizes.idleWindow().toSeconds());
                    idleWindows(own, s, bare, "its_broker");
                    own.put("errors", 0);
                } finally {
                    servers.stop(s);
                }
            }
        }
        out.put("errors", 0);
        return out;
    }

    /**
     * Scenario 9's windows: {@code t}'s CPU over each as a share of one core, by group and by thread, and beside it
     * {@code broker}'s, named {@code brokerName} ({@code bare_broker} when it has no client, {@code its_broker} when it
     * is {@code t}'s); the worst window's shares in {@code out}.
     */
    private void idleWindows(ObjectNode out, Target t, BareBroker broker, String brokerName) {
        ArrayNode windows = out.putArray("windows");
        double worst = 0;
        double worstBroker = 0;
        double worstAbove = 0;
        for (int w = 0; w < sizes.idleWindows(); w++) {
            ObjectNode part = windows.addObject();
            part.put("load_average_start", Machine.loadAverage());
            Map<Long, Double> before = ThreadCpu.sample(t.pid());
            Map<Long, Double> brokerBefore = ThreadCpu.sample(broker.pid());
            double p0 = t.cpuSeconds();
            double b0 = broker.cpuSeconds();
            long t0 = System.nanoTime();
            sleep(sizes.idleWindow().toMillis());
            double seconds = (System.nanoTime() - t0) / 1e9;
            double used = t.cpuSeconds() - p0;
            double brokerUsed = broker.cpuSeconds() - b0;
            Map<Long, Double> after = ThreadCpu.sample(t.pid());
            Map<Long, Double> brokerAfter = ThreadCpu.sample(broker.pid());
            part.put("load_average_end", Machine.loadAverage());
            part.put("server_cpu_s", Latencies.round(used));
            double pct = Math.round(used / seconds * 1000) / 10.0;
            part.put("pct_of_one_core", pct);
            double brokerPct = Math.round(brokerUsed / seconds * 1000) / 10.0;
            part.put(brokerName + "_cpu_s", Latencies.round(brokerUsed));
            part.put(brokerName + "_pct_of_one_core", brokerPct);
            if (brokerName.equals("bare_broker")) {
                part.put("above_bare_broker_pct_of_one_core", Math.round((pct - brokerPct) * 10) / 10.0);
            }
            worst = Math.max(worst, pct);
            worstBroker = Math.max(worstBroker, brokerPct);
            worstAbove = Math.max(worstAbove, pct - brokerPct);
            Map<String, Double> groups = new TreeMap<>();
            Map<String, Double> threads = new TreeMap<>();
            split(t.pid(), before, after, groups, threads);
            putSorted(part.putObject("cpu_s_by_group"), groups, 20);
            putSorted(part.putObject("cpu_s_by_thread"), threads, 15);
            Map<String, Double> brokerThreads = new TreeMap<>();
            split(broker.pid(), brokerBefore, brokerAfter, new TreeMap<>(), brokerThreads);
            putSorted(part.putObject(brokerName + "_cpu_s_by_thread"), brokerThreads, 10);
        }
        out.put("pct_of_one_core", worst);
        out.put(brokerName + "_pct_of_one_core", worstBroker);
        if (brokerName.equals("bare_broker")) {
            out.put("above_bare_broker_pct_of_one_core", Math.round(worstAbove * 10) / 10.0);
        }
    }

    /** The CPU seconds each thread of {@code pid} spent between two samples, by group and by name (digits as N). */
    private static void split(
            long pid,
            Map<Long, Double> before,
            Map<Long, Double> after,
            Map<String, Double> groups,
            Map<String, Double> threads) {
        Map<Long, String> names = ThreadCpu.names(pid, after.keySet());
        for (Map.Entry<Long, Double> e : after.entrySet()) {
            double d = e.getValue() - before.getOrDefault(e.getKey(), 0.0);
            if (d <= 0) {
                continue;
            }
            String name = names.getOrDefault(e.getKey(), "?");
            groups.merge(JfrSummary.group(name), d, Double::sum);
            threads.merge(name.replaceAll("\\d+", "N"), d, Double::sum);
        }
    }

    private static void putSorted(ObjectNode out, Map<String, Double> cpu, int top) {
        cpu.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .limit(top)
                .forEach(e -> out.put(e.getKey(), Latencies.round(e.getValue())));
    }

    private static void rss(ObjectNode out, Servers.Pair pair) {
        double[] a = pair.allInOne().rssMib();
        double[] g = pair.gateway().rssMib();
        out.put("all_in_one_rss_mib", Math.round(a[0]));
        out.put("all_in_one_hwm_mib", Math.round(a[1]));
        out.put("gateway_rss_mib", Math.round(g[0]));
        out.put("gateway_hwm_mib", Math.round(g[1]));
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
    }
}
