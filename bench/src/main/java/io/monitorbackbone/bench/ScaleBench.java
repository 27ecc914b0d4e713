package io.monitorbackbone.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.testsupport.LoadBalancer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 13, readers scaled over gateways (issue 17): N gateways ({@code MP_ROLES=gateway}) on the main server's
 * broker, behind HAProxy (round robin, not sticky, each gateway in rotation while its readiness answers), for each N of
 * the run in turn, with the same monitors, readers and publish rate each time.
 *
 * <ul>
 *   <li>Publishers send a fixed rate of publishes, spread over M monitors, through the load balancer (open loop: each
 *       publisher has its schedule; one that falls behind by more than a period starts its schedule again from there,
 *       so the rate reached is at most the one asked for, and is reported).
 *   <li>R readers, {@code readersPerMonitor} subscriptions of each monitor, each on its own keep-alive connection to the
 *       load balancer: a pull parked with {@code wait=5}, then an ack of its {@code next}, so every request may land on
 *       another gateway. Delivered observations are the bench's rows the readers got at or past their last ack.
 *   <li>A pull probe: one subscription pulled with {@code wait=0} through the load balancer every few tens of ms (and
 *       acked), the time of a pull that never parks.
 *   <li>Publish on one, wake on another: a pull parked on gateway B (straight, not through HAProxy), then one publish
 *       straight to gateway A; from the publish's answer to the pull's answer (N = 1: both on the one gateway).
 *   <li>Per gateway over the window: CPU seconds ({@code /proc}), and from its {@code /q/metrics} every byte its Kafka
 *       clients received ({@code kafka_consumer|producer|admin_client_incoming_byte_total}): what the broker sent it;
 *       of it, the table records its consumers fetched ({@code kafka_consumer_fetch_manager_bytes_consumed_total}).
 * </ul>
 */
final class ScaleBench {
    /** The counts of a full run and of {@code --quick} (a smoke test: a few seconds of load). */
    record Sizes(
            int monitors,
            int readersPerMonitor,
            int publishesPerSecond,
            int publishers,
            Duration warm,
            Duration window,
            int wakeRounds,
            long probeEveryMs,
            int readerWaitSeconds,
            Duration idle) {
        static Sizes full() {
            return new Sizes(
                    16, 2, 50, 32, Duration.ofSeconds(10), Duration.ofSeconds(30), 40, 50, 5, Duration.ofSeconds(5));
        }

        static Sizes quick() {
            return new Sizes(
                    4, 2, 20, 4, Duration.ofSeconds(1), Duration.ofSeconds(3), 3, 100, 1, Duration.ofSeconds(1));
        }
    }

    private static final int WAKE_WARM = 3;
    private static final Duration GENEROUS = Duration.ofMinutes(3);

    private final Sizes sizes;
    private final String run;
    private final Servers servers;
    private final List<Integer> counts;
    private final boolean coreServes;

    /**
     * @param counts the numbers of gateways to measure, in order
     * @param coreServes the main server (all roles) is the first gateway, so a smoke run starts one gateway less
     */
    ScaleBench(Sizes sizes, String run, Servers servers, List<Integer> counts, boolean coreServes) {
        this.sizes = sizes;
        this.run = run;
        this.servers = servers;
        this.counts = counts;
        this.coreServes = coreServes;
    }

    ObjectNode run() {
        ObjectNode out = BenchClient.JSON.createObjectNode();
        if (servers.external()) {
            out.put("skipped", "needs servers this run starts (not --base)");
            return out;
        }
        Target core = servers.main();
        out.put("monitors", sizes.monitors());
        out.put("readers", sizes.monitors() * sizes.readersPerMonitor());
        out.put("publishes_per_s_target", sizes.publishesPerSecond());
        out.put("warm_up_s", sizes.warm().toSeconds());
        out.put("window_s", sizes.window().toSeconds());
        out.put("reader_wait_s", sizes.readerWaitSeconds());
        out.put(
                "layout",
                coreServes
                        ? "the main server (all roles, embedded broker) is gateway 1; the others MP_ROLES=gateway"
                        : "every gateway MP_ROLES=gateway; the main server holds the broker, projector and leases");
        List<BenchClient.Monitor> monitors = new ArrayList<>();
        List<BenchClient.Sub> readers = new ArrayList<>();
        BenchClient.Sub probe;
        BenchClient.Monitor wake;
        BenchClient.Sub wakeSub;
        try (BenchClient api = new BenchClient(core.base)) {
            for (int i = 0; i < sizes.monitors(); i++) {
                BenchClient.Monitor m = api.create("scale" + i + "-" + run);
                monitors.add(m);
                for (int r = 0; r < sizes.readersPerMonitor(); r++) {
                    readers.add(api.subscribe(m, "agent:reader-" + r, null));
                }
            }
            probe = api.subscribe(monitors.get(0), "agent:probe", null);
            wake = api.create("scalewake-" + run);
            wakeSub = api.subscribe(wake, "agent:wake", null);
        }
        List<Target> gateways = new ArrayList<>();
        if (coreServes) {
            gateways.add(core);
        }
        ArrayNode cases = out.putArray("cases");
        try {
            for (int n : counts) {
                grow(gateways, n);
                List<Target> these = gateways.subList(0, n);
                LoadBalancer lb = balancer(these);
                try {
                    ObjectNode part = cases.addObject();
                    part.put("gateways", n);
                    measure(part, these, lb, monitors, readers, probe, wake, wakeSub);
                } finally {
                    lb.close();
                }
            }
        } finally {
            servers.keepSecond(false);
            for (Target g : gateways) {
                servers.stop(g);
            }
        }
        JsonNode first = cases.get(0);
        for (JsonNode c : cases) {
            ObjectNode p = (ObjectNode) c;
            for (String f : List.of(
                    "gateway_cpu_us_per_delivered",
                    "gateway_cpu_above_idle_us_per_delivered",
                    "incoming_bytes_per_gateway_per_s",
                    "incoming_bytes_per_gateway_per_published",
                    "table_fetched_bytes_per_gateway_per_published")) {
                p.put(f + "_to_first", ratio(c.get(f), first.get(f)));
            }
        }
        return out;
    }

    private static long stot(Map<String, Map<String, String>> stats, String backend) {
        String v = stats.getOrDefault(backend, Map.of()).get("stot");
        return v == null || v.isEmpty() ? 0 : Long.parseLong(v);
    }

    private static double ratio(JsonNode a, JsonNode b) {
        return b.asDouble() == 0 ? Double.NaN : Latencies.round(a.asDouble() / b.asDouble());
    }

    /** Starts gateways (side by side) until there are {@code n}. */
    private void grow(List<Target> gateways, int n) {
        if (coreServes && gateways.size() == 1 && n > 1) {
            gateways.add(servers.second()); // scenario 5's, kept for this one by a quick run: one start less
        }
        List<CompletableFuture<Target>> starting = new ArrayList<>();
        for (int i = gateways.size(); i < n; i++) {
            starting.add(CompletableFuture.supplyAsync(servers::gatewayOnly));
        }
        for (CompletableFuture<Target> f : starting) {
            Target t = f.join();
            if (t == null) {
                throw new BenchError("no gateway could be started on the main server's broker");
            }
            gateways.add(t);
        }
    }

    /** HAProxy in front of {@code gateways}, returned once it sends requests to every one of them. */
    private static LoadBalancer balancer(List<Target> gateways) {
        LoadBalancer.Builder b = LoadBalancer.builder();
        for (int i = 0; i < gateways.size(); i++) {
            Target g = gateways.get(i);
            b.backend(new LoadBalancer.Backend(
                    "gw" + (i + 1), g.port(), g.management().getPort()));
        }
        LoadBalancer lb;
        try {
            lb = b.start();
            for (int i = 0; i < gateways.size(); i++) {
                lb.awaitUp("gw" + (i + 1), GENEROUS);
            }
        } catch (AssertionError | IllegalStateException e) {
            throw new BenchError("HAProxy in front of the gateways: " + e.getMessage(), e);
        }
        return lb;
    }

    private void measure(
            ObjectNode out,
            List<Target> gateways,
            LoadBalancer lb,
            List<BenchClient.Monitor> monitors,
            List<BenchClient.Sub> readers,
            BenchClient.Sub probe,
            BenchClient.Monitor wake,
            BenchClient.Sub wakeSub) {
        URI front = lb.baseUri();
        // Idle first: what the gateways cost with no request at all, subtracted below from what they cost loaded.
        Window idleWindow = new Window(0, 0);
        Sample i0 = Sample.take(gateways, servers.main(), idleWindow);
        Scenarios.sleep(sizes.idle().toMillis());
        Sample i1 = Sample.take(gateways, servers.main(), idleWindow);
        double idleSeconds = (i1.at - i0.at) / 1e9;
        long start = System.nanoTime() + 50_000_000L;
        long measureFrom = start + sizes.warm().toNanos();
        long end = measureFrom + sizes.window().toNanos();
        Window w = new Window(measureFrom, end);
        List<Thread> threads = new ArrayList<>();
        List<Latencies> deliveries = new ArrayList<>();
        List<Latencies> publishes = new ArrayList<>();
        for (int i = 0; i < readers.size(); i++) {
            Latencies lat = new Latencies();
            deliveries.add(lat);
            BenchClient.Sub s = readers.get(i);
            threads.add(thread("scale-reader-" + i, () -> reader(front, s, sizes.readerWaitSeconds(), w, lat)));
        }
        int publishers = Math.min(sizes.publishers(), monitors.size());
        for (int p = 0; p < publishers; p++) {
            Latencies lat = new Latencies();
            publishes.add(lat);
            List<BenchClient.Monitor> mine = new ArrayList<>();
            for (int i = p; i < monitors.size(); i += publishers) {
                mine.add(monitors.get(i));
            }
            double rate = sizes.publishesPerSecond() / (double) publishers;
            threads.add(thread("scale-publisher-" + p, () -> publisher(front, mine, rate, start, w, lat)));
        }
        Latencies probes = new Latencies();
        threads.add(thread("scale-probe", () -> probe(front, probe, w, probes)));
        Latencies wakes = new Latencies();
        Target a = gateways.get(0);
        Target b = gateways.get(gateways.size() > 1 ? 1 : 0);
        Thread waker = thread("scale-wake", () -> wakeAcross(a, b, wake, wakeSub, w, wakes));
        threads.add(waker);
        threads.forEach(Thread::start);

        Load.sleepUntil(measureFrom);
        Sample s0 = Sample.take(gateways, servers.main(), w);
        Map<String, Map<String, String>> h0 = lb.stats();
        out.put("load_average_start", Machine.loadAverage());
        Load.sleepUntil(end);
        Sample s1 = Sample.take(gateways, servers.main(), w);
        Map<String, Map<String, String>> h1 = lb.stats();
        out.put("load_average_end", Machine.loadAverage());
        // The load goes on until the wake-up rounds are done, so that every round is timed under it.
        try {
            waker.join(TimeUnit.MINUTES.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
        out.put("wake_rounds_s", Latencies.round((System.nanoTime() - w.from) / 1e9));
        w.running = false;
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(sizes.readerWaitSeconds() + 60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchError("interrupted", e);
            }
        }
        double seconds = (s1.at - s0.at) / 1e9;
        long delivered = s1.delivered - s0.delivered;
        long published = s1.published - s0.published;
        out.put("idle_s", Latencies.round(idleSeconds));
        out.put("window_s", Latencies.round(seconds));
        out.put("published_per_s", Math.round(published / seconds));
        out.put("delivered_obs_per_s", Math.round(delivered / seconds));
        out.put("delivered_expected_per_s", Math.round(published * sizes.readersPerMonitor() / seconds));
        Latencies.merge(publishes).describe(out, "publish_");
        Latencies.merge(deliveries).describe(out, "delivery_");
        probes.describe(out, "pull_");
        wakes.describe(out, "wake_across_");
        double gatewayCpu = 0;
        double idleCpuPerSecond = 0;
        double fetched = 0;
        double incoming = 0;
        double written = 0;
        ArrayNode per = out.putArray("per_gateway");
        for (int i = 0; i < gateways.size(); i++) {
            Target g = gateways.get(i);
            double cpu = s1.cpu[i] - s0.cpu[i];
            double idleCpu = (i1.cpu[i] - i0.cpu[i]) / idleSeconds;
            idleCpuPerSecond += idleCpu;
            double f = s1.metrics.get(i).fetchedTables() - s0.metrics.get(i).fetchedTables();
            double in = s1.metrics.get(i).incoming() - s0.metrics.get(i).incoming();
            double wr = s1.metrics.get(i).produced() - s0.metrics.get(i).produced();
            gatewayCpu += cpu;
            fetched += f;
            incoming += in;
            written += wr;
            ObjectNode x = per.addObject();
            x.put("gateway", "gw" + (i + 1));
            // HAProxy's count of requests it sent this gateway in the window (one connection each).
            x.put("requests_per_s", Math.round((stot(h1, "gw" + (i + 1)) - stot(h0, "gw" + (i + 1))) / seconds));
            x.put("cpu_s", Latencies.round(cpu));
            x.put("pct_of_one_core", Math.round(cpu / seconds * 1000) / 10.0);
            x.put("idle_pct_of_one_core", Math.round(idleCpu * 1000) / 10.0);
            x.put(
                    "idle_incoming_bytes_per_s",
                    Math.round((i1.metrics.get(i).incoming() - i0.metrics.get(i).incoming()) / idleSeconds));
            x.put("table_fetched_bytes_per_s", Math.round(f / seconds));
            x.put("incoming_bytes_per_s", Math.round(in / seconds));
            x.put("produced_bytes_per_s", Math.round(wr / seconds));
            x.put("follower_logs", Math.round(s1.metrics.get(i).followerLogs()));
            x.put("rss_mib", Math.round(g.rssMib()[0]));
        }
        int n = gateways.size();
        out.put("gateway_cpu_s", Latencies.round(gatewayCpu));
        out.put("gateway_cpu_us_per_delivered", delivered == 0 ? 0 : Latencies.round(gatewayCpu * 1e6 / delivered));
        out.put(
                "gateway_cpu_us_per_delivered_per_gateway",
                delivered == 0 ? 0 : Latencies.round(gatewayCpu * 1e6 / delivered / n));
        double aboveIdle = gatewayCpu - idleCpuPerSecond * seconds;
        out.put("gateway_idle_cpu_s_per_s", Latencies.round(idleCpuPerSecond));
        out.put(
                "gateway_cpu_above_idle_us_per_delivered",
                delivered == 0 ? 0 : Latencies.round(aboveIdle * 1e6 / delivered));
        double core = s1.coreCpu - s0.coreCpu;
        out.put("core_cpu_s", Latencies.round(core));
        out.put("core_cpu_us_per_delivered", delivered == 0 ? 0 : Latencies.round(core * 1e6 / delivered));
        out.put("client_cpu_s", Latencies.round(s1.clientCpu - s0.clientCpu));
        out.put("table_fetched_bytes_per_gateway_per_s", Math.round(fetched / n / seconds));
        out.put("incoming_bytes_per_gateway_per_s", Math.round(incoming / n / seconds));
        out.put("gateways_produced_bytes_per_s", Math.round(written / seconds));
        out.put("incoming_bytes_per_gateway_per_published", published == 0 ? 0 : Math.round(incoming / n / published));
        out.put(
                "table_fetched_bytes_per_gateway_per_published",
                published == 0 ? 0 : Math.round(fetched / n / published));
        ObjectNode byTable = out.putObject("table_fetched_bytes_per_gateway_per_s_by_topic");
        Map<String, Double> topics = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            for (Map.Entry<String, Double> e : s1.metrics.get(i).tables().entrySet()) {
                double d = e.getValue() - s0.metrics.get(i).tables().getOrDefault(e.getKey(), 0.0);
                topics.merge(e.getKey(), d / n / seconds, Double::sum);
            }
        }
        topics.forEach((t, v) -> {
            if (v >= 1) {
                byTable.put(t, Math.round(v));
            }
        });
        out.put(
                "incoming_per_gateway_to_produced",
                written == 0 ? Double.NaN : Latencies.round(incoming / n / written));
        out.put("rows_behind_cursor", w.behind.get());
        out.put("redelivered_rows", w.redelivered.get());
        out.put("errors", w.errors.get());
        if (!w.samples.isEmpty()) {
            out.putPOJO("error_samples", List.copyOf(w.samples));
        }
        out.put("publishes_late", w.late.get());
    }

    /** What the threads of one case share: the window, the counters, the errors. */
    private static final class Window {
        final long from;
        final long to;
        volatile boolean running = true;
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong published = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong behind = new AtomicLong();
        final AtomicLong redelivered = new AtomicLong();
        final AtomicLong late = new AtomicLong();
        final ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();

        Window(long from, long to) {
            this.from = from;
            this.to = to;
        }

        boolean in(long now) {
            return now >= from && now < to;
        }

        void error(String what) {
            errors.incrementAndGet();
            if (samples.size() < 5) {
                samples.add(what);
            }
        }
    }

    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    /** One reader: pull parked up to {@code wait} s, ack the page's next, again; counts the bench's rows it got. */
    private static void reader(URI front, BenchClient.Sub s, int wait, Window w, Latencies lat) {
        long acked = -1;
        try (BenchClient api = new BenchClient(front)) {
            while (w.running) {
                HttpConn.Response r;
                try {
                    r = api.pull(s, 200, wait);
                } catch (RuntimeException e) {
                    w.error("pull: " + e);
                    Scenarios.sleep(100);
                    continue;
                }
                long now = System.nanoTime();
                if (!r.ok()) {
                    w.error("pull " + r.status() + " " + BenchClient.abbreviated(r.text()));
                    Scenarios.sleep(100);
                    continue;
                }
                JsonNode page = BenchClient.json(r);
                JsonNode rows = page.get("observations");
                if (rows.isEmpty()) {
                    continue;
                }
                w.redelivered.addAndGet(page.path("redelivered").asLong());
                for (JsonNode o : rows) {
                    long seq = Long.parseLong(o.get("sequence").asText());
                    if (acked > 0 && seq < acked) {
                        w.behind.incrementAndGet(); // a row before the cursor this reader acked: a cursor went back
                        continue;
                    }
                    if (BenchClient.TYPE.equals(o.path("type").asText())) {
                        w.delivered.incrementAndGet();
                        long sent = o.path("data").path("t").asLong(0);
                        if (sent != 0 && w.in(now)) {
                            lat.add(now - sent);
                        }
                    }
                }
                long next = page.get("next").asLong();
                try {
                    HttpConn.Response ack = api.ack(s, next);
                    if (!ack.ok()) {
                        w.error("ack " + ack.status() + " " + BenchClient.abbreviated(ack.text()));
                    } else {
                        acked = Math.max(acked, next);
                    }
                } catch (RuntimeException e) {
                    w.error("ack: " + e);
                }
            }
        }
    }

    /** One publisher: {@code rate} publishes per second round robin over its monitors, each carrying its send time. */
    private static void publisher(
            URI front, List<BenchClient.Monitor> mine, double rate, long start, Window w, Latencies lat) {
        long period = Math.round(1e9 / rate);
        long due = start;
        long i = 0;
        try (BenchClient api = new BenchClient(front)) {
            while (w.running) {
                Load.sleepUntil(due);
                long sent = System.nanoTime();
                if (sent - due > period) {
                    // Behind by more than a period: the schedule restarts from now rather than catching up in a burst,
                    // so the rate is at most the one asked for and what was reached is reported.
                    w.late.incrementAndGet();
                    due = sent;
                }
                due += period;
                BenchClient.Monitor m = mine.get((int) (i++ % mine.size()));
                byte[] body = ("{\"type\":\"" + BenchClient.TYPE + "\",\"subject\":\"s-" + (i % 16)
                                + "\",\"data\":{\"n\":1,\"t\":" + sent + "}}")
                        .getBytes(UTF_8);
                try {
                    HttpConn.Response r = api.publish(m, body);
                    long took = System.nanoTime() - sent;
                    if (!r.ok()) {
                        w.error("publish " + r.status() + " " + BenchClient.abbreviated(r.text()));
                    } else {
                        w.published.incrementAndGet();
                        if (w.in(sent)) {
                            lat.add(took);
                        }
                    }
                } catch (RuntimeException e) {
                    w.error("publish: " + e);
                }
            }
        }
    }

    /** Pulls with {@code wait=0} through the load balancer every {@code probeEveryMs}, acking what it got. */
    private void probe(URI front, BenchClient.Sub s, Window w, Latencies lat) {
        try (BenchClient api = new BenchClient(front)) {
            while (w.running) {
                long a = System.nanoTime();
                try {
                    HttpConn.Response r = api.pull(s, 50, 0);
                    long took = System.nanoTime() - a;
                    if (!r.ok()) {
                        w.error("probe pull " + r.status() + " " + BenchClient.abbreviated(r.text()));
                    } else {
                        if (w.in(a)) {
                            lat.add(took);
                        }
                        JsonNode page = BenchClient.json(r);
                        if (!page.get("observations").isEmpty()) {
                            HttpConn.Response ack = api.ack(s, page.get("next").asLong());
                            if (!ack.ok()) {
                                w.error("probe ack " + ack.status() + " " + BenchClient.abbreviated(ack.text()));
                            }
                        }
                    }
                } catch (RuntimeException e) {
                    w.error("probe: " + e);
                }
                Scenarios.sleep(sizes.probeEveryMs());
            }
        }
    }

    /**
     * From the window's start: a pull parked on {@code b} (straight to it), 100 ms for it to park, one publish straight
     * to {@code a}; from the publish's answer to the pull's answer, in every round after the first few.
     */
    private void wakeAcross(Target a, Target b, BenchClient.Monitor m, BenchClient.Sub s, Window w, Latencies lat) {
        Load.sleepUntil(
                w.from - TimeUnit.SECONDS.toNanos(Math.min(5, sizes.warm().toSeconds())));
        try (BenchClient onA = new BenchClient(a.base);
                BenchClient parked = new BenchClient(b.base)) {
            for (int round = 0; round < sizes.wakeRounds() + WAKE_WARM; round++) {
                Scenarios.catchUp(onA, s);
                CompletableFuture<Long> answered = new CompletableFuture<>();
                CompletableFuture<HttpConn.Response> page = CompletableFuture.supplyAsync(() -> {
                    HttpConn.Response r = parked.pull(s, 50, 20);
                    answered.complete(System.nanoTime());
                    return r;
                });
                Scenarios.sleep(100);
                HttpConn.Response pub = onA.publish(m, BenchClient.observation("s-1"));
                long published = System.nanoTime();
                HttpConn.Response r = page.get(30, TimeUnit.SECONDS);
                long woke = answered.get();
                if (!pub.ok()
                        || !r.ok()
                        || BenchClient.json(r).get("observations").isEmpty()) {
                    w.error(
                            !pub.ok()
                                    ? "wake publish " + pub.status() + " " + BenchClient.abbreviated(pub.text())
                                    : "wake pull " + r.status() + " " + BenchClient.abbreviated(r.text()));
                    continue;
                }
                if (round >= WAKE_WARM) {
                    lat.add(Math.max(0, woke - published));
                }
            }
        } catch (RuntimeException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            w.error("wake: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The counters, CPU times and each gateway's Kafka client meters at one instant. */
    private record Sample(
            long at,
            long delivered,
            long published,
            double[] cpu,
            double coreCpu,
            double clientCpu,
            List<KafkaMeters> metrics) {
        static Sample take(List<Target> gateways, Target core, Window w) {
            List<KafkaMeters> metrics = new ArrayList<>();
            for (Target g : gateways) {
                metrics.add(KafkaMeters.read(g));
            }
            double[] cpu = new double[gateways.size()];
            for (int i = 0; i < cpu.length; i++) {
                cpu[i] = gateways.get(i).cpuSeconds();
            }
            return new Sample(
                    System.nanoTime(),
                    w.delivered.get(),
                    w.published.get(),
                    cpu,
                    core.cpuSeconds(),
                    Load.clientCpuSeconds(),
                    metrics);
        }
    }

    /**
     * Totals of one gateway's Kafka client meters, from its {@code /q/metrics}: every byte its Kafka clients received
     * (what the broker sent it: fetched records, offsets, metadata, acknowledgements), every byte its producers sent,
     * and the record bytes its consumers fetched of the tables (every topic but the monitors' logs {@code mp.obs.*},
     * whose per-topic meters the client binder registers only at its next refresh after the partition is assigned).
     */
    record KafkaMeters(
            double fetchedTables, double incoming, double produced, double followerLogs, Map<String, Double> tables) {
        static KafkaMeters read(Target g) {
            try (HttpConn http = new HttpConn(g.management())) {
                HttpConn.Response r = http.get("/q/metrics", null);
                if (!r.ok()) {
                    throw new BenchError("/q/metrics of " + g.base + " answered " + r.status());
                }
                return parse(r.text());
            }
        }

        private static final java.util.regex.Pattern LABEL =
                java.util.regex.Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

        /**
         * Sums the samples of the meters this scenario reads. The Kafka clients report a topic's fetched bytes under
         * its name twice, once with its dots made underscores: one of each pair is counted.
         */
        static KafkaMeters parse(String text) {
            Map<String, Double> fetchedByTopic = new TreeMap<>();
            double incoming = 0;
            double produced = 0;
            double logs = 0;
            for (String line : text.lines().toList()) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int space = line.lastIndexOf(' ');
                int brace = line.indexOf('{');
                if (space < 0) {
                    continue;
                }
                boolean labelled = brace >= 0 && brace < space;
                String name = labelled ? line.substring(0, brace) : line.substring(0, space);
                double v;
                try {
                    v = Double.parseDouble(line.substring(space + 1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (Double.isNaN(v)) {
                    continue;
                }
                switch (name) {
                    case "kafka_consumer_fetch_manager_bytes_consumed_total" -> {
                        Map<String, String> labels = labels(labelled ? line.substring(brace, space) : "");
                        String topic = labels.get("topic");
                        if (topic != null) {
                            fetchedByTopic.merge(
                                    labels.getOrDefault("client_id", "") + "|" + topic.replace('.', '_'), v, Math::max);
                        }
                    }
                    case "kafka_consumer_incoming_byte_total",
                            "kafka_producer_incoming_byte_total",
                            "kafka_admin_client_incoming_byte_total" -> incoming += v;
                    case "kafka_producer_outgoing_byte_total" -> produced += v;
                    case "mp_follower_logs" -> logs += v;
                    default -> {}
                }
            }
            double tables = 0;
            Map<String, Double> byTopic = new TreeMap<>();
            for (Map.Entry<String, Double> e : fetchedByTopic.entrySet()) {
                String topic = e.getKey().substring(e.getKey().indexOf('|') + 1);
                if (!topic.startsWith("mp_obs_")) {
                    tables += e.getValue();
                    byTopic.merge(topic, e.getValue(), Double::sum);
                }
            }
            return new KafkaMeters(tables, incoming, produced, logs, byTopic);
        }

        private static Map<String, String> labels(String braced) {
            Map<String, String> out = new TreeMap<>();
            java.util.regex.Matcher m = LABEL.matcher(braced);
            while (m.find()) {
                out.put(m.group(1), m.group(2));
            }
            return out;
        }
    }
}
