package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** {@code ./mp bench}: runs the scenarios against a server it starts (or {@code --base}), writes JSON and Markdown. */
public final class Bench {
    static final String USAGE = """
            usage: ./mp bench [--scenarios 1,2,...] [--quick] [--base URL [--kafka HOST:PORT]] [--out FILE]
                              [--docs FILE | --no-docs] [--server-opts "JVM OPTIONS"] [--jar PATH] [--gateways N]
                   ./mp bench --jmh [JMH options]

              --scenarios  which of 1..13 to run (default all): 1 sequential publish, 2 publish over 16 connections,
                           3 drain, 4 long-poll wake-up, 5 lease claims, 6 small vs large log, 7 memory, 8 raw producer,
                           9 an idle server's CPU (a fresh server left alone, by thread; then one on a broker of its
                           own process, as on a cluster), 10 the Kafka bridge (after bridging until the compilers settle, 3 min at most: bridged records/s into 1 and 16
                           monitors, live and as a backlog, append to parked pull, against the raw producer's
                           pipelined rate), 11 batch publish, 12 drain with large pages, 13 readers over N gateways
                           behind HAProxy (needs /usr/sbin/haproxy)
              --gateways   scenario 13 measures 1, 2, ... N gateways (MP_ROLES=gateway) on the first server's broker,
                           behind HAProxy, in one run (default 3); a comma list (2,3) measures those only; --quick
                           measures N only (default 2, the first server being one of them)
              --quick      small counts: a smoke test of the harness and the server, not a measurement
              --base       load this server instead of starting one; --kafka names its broker (needed by 5 with two
                           gateways, by 8 and by 10); 7 and 13 need servers this run starts
              --backlog    observations scenario 3 drains (default 100,000; 2,000 with --quick)
              --warm-server  at most this many seconds of load on the main server before the first scenario that
                           uses it, in 10 s rounds until a round's JIT compilers used at most 5 % of a core (default
                           180 for a server this run starts; 0 with --quick or --base, and 0 turns it off)
              --idle-settle  seconds scenario 9 waits after each of its servers is ready before its windows (default 10; 2
                           with --quick): a longer one shows a server whose compilers have settled
              --out        the JSON results (default bench/target/results/<date>-<commit>.json)
              --docs       the Markdown file whose section for this date and commit is added or replaced (default
                           docs/benchmarks.md for a full run, none for --quick)
              --server-opts  JVM options for the servers it starts (default none, as ./mp serve), e.g.
                           "-XX:StartFlightRecording=filename=/tmp/server.jfr"
            """;

    private Bench() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--jmh")) {
            org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("--jfr-summary")) {
            JfrSummary.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Map<String, String> o = options(args);
        if (o.containsKey("help")) {
            System.out.print(USAGE);
            return;
        }
        JsonNode result = run(o);
        System.exit(result.get("errors").asLong() == 0 ? 0 : 1);
    }

    static JsonNode run(Map<String, String> o) throws IOException {
        Path root = Path.of(o.getOrDefault("root", System.getProperty("mp.root", ".")))
                .toAbsolutePath()
                .normalize();
        boolean quick = o.containsKey("quick");
        TreeSet<String> which = new TreeSet<>(List.of(
                o.getOrDefault("scenarios", "1,2,3,4,5,6,7,8,9,10,11,12,13").split(",")));
        String commit = Machine.commit(root);
        String date = LocalDate.now().toString();
        String id = date + "-" + (commit.isEmpty() ? "unknown" : commit) + (quick ? "-quick" : "");
        Path out = Path.of(o.getOrDefault(
                "out", root.resolve("bench/target/results/" + id + ".json").toString()));
        Path docs = o.containsKey("no-docs")
                ? null
                : o.containsKey("docs") ? Path.of(o.get("docs")) : quick ? null : root.resolve("docs/benchmarks.md");
        Path jar = Path.of(o.getOrDefault(
                "jar",
                root.resolve("gateway/target/quarkus-app/quarkus-run.jar").toString()));
        List<String> jvm = o.containsKey("server-opts")
                ? List.of(o.get("server-opts").trim().split("\\s+"))
                : List.of();
        URI base = o.containsKey("base") ? URI.create(o.get("base")) : null;
        if (base == null && !Files.isRegularFile(jar)) {
            throw new BenchError("no server at " + jar + ": build it with ./mp build, or give --base");
        }
        Path work = Files.createTempDirectory("mp-bench-");
        System.setProperty("mp.test.dir", work.toString()); // where ServerProcess puts data and logs
        if (System.getProperty("mp.test.ready-seconds") == null) {
            // A run is a measurement, not a test: a server slow to start on a busy machine is waited for, not failed.
            System.setProperty("mp.test.ready-seconds", "300");
        }

        ObjectNode r = BenchClient.JSON.createObjectNode();
        r.put("id", id);
        r.put("date", date);
        r.put("commit", commit);
        r.put("dirty", Machine.dirty(root));
        r.put("quick", quick);
        r.set("machine", Machine.describe(root));
        r.put(
                "server",
                base != null
                        ? "--base " + base + (o.containsKey("kafka") ? ", broker " + o.get("kafka") : "")
                        : "started by the bench: java " + String.join(" ", jvm) + (jvm.isEmpty() ? "" : " ") + "-jar "
                                + root.relativize(jar.toAbsolutePath())
                                + ", embedded broker, fresh data directory, free ports");
        ObjectNode scenarios = r.putObject("scenarios");
        long t0 = System.nanoTime();
        Scenarios.Sizes preset = quick ? Scenarios.Sizes.quick() : Scenarios.Sizes.full();
        Scenarios.Sizes backlogged =
                o.containsKey("backlog") ? preset.withBacklog(Long.parseLong(o.get("backlog"))) : preset;
        Scenarios.Sizes sizes = o.containsKey("idle-settle")
                ? backlogged.withIdleSettle(java.time.Duration.ofSeconds(Long.parseLong(o.get("idle-settle"))))
                : backlogged;
        String runTag = Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
        boolean failed = false;
        try (Servers servers = new Servers(jar, jvm, base, o.get("kafka"), quick)) {
            // Scenarios 6, 7 and 9 measure fresh servers; a quick run's ran on the main one, and says so.
            r.put("reused_servers", servers.reused());
            Scenarios s = new Scenarios(sizes, runTag, servers);
            servers.keepSecond(quick && which.contains("13"));
            Map<String, Supplier<ObjectNode>> plan = new LinkedHashMap<>();
            plan.put("1", s::sequentialPublish);
            plan.put("2", s::parallelPublish);
            plan.put("8", () -> rawProducer(s, servers, sizes, runTag));
            plan.put("11", s::batchPublish); // beside 8, so the ratio to the raw producer is of one machine state
            plan.put("3", s::drain);
            plan.put("12", s::largePageDrain);
            plan.put("4", s::wakeUp);
            plan.put("5", s::leaseClaims);
            plan.put("6", s::flatness);
            plan.put("7", s::memory);
            plan.put("9", s::idle);
            plan.put("10", () -> bridge(servers, sizes, runTag, scenarios));
            List<Integer> counts = gatewayCounts(o.get("gateways"), quick);
            plan.put(
                    "13",
                    () -> new ScaleBench(
                                    quick ? ScaleBench.Sizes.quick() : ScaleBench.Sizes.full(),
                                    runTag,
                                    servers,
                                    counts,
                                    quick)
                            .run());
            java.time.Duration warm = warmBudget(o, quick, base);
            if (!warm.isZero() && which.stream().anyMatch(MAIN_SERVER_SCENARIOS::contains)) {
                System.err.printf("bench: warming the server up (at most %d s) …%n", warm.toSeconds());
                try {
                    r.set("server_warm_up", s.warmServer(warm));
                } catch (RuntimeException ex) {
                    failed = true; // the server's logs are kept: a server that ended here says why only there
                    throw ex;
                }
                System.err.printf("bench: warm-up: %s%n", r.get("server_warm_up"));
            }
            for (Map.Entry<String, Supplier<ObjectNode>> e : plan.entrySet()) {
                if (!which.contains(e.getKey())) {
                    continue;
                }
                System.err.printf("bench: scenario %s …%n", e.getKey());
                long t = System.nanoTime();
                try {
                    scenarios.set(e.getKey(), e.getValue().get());
                } catch (RuntimeException ex) {
                    failed = true;
                    System.err.println("bench: scenario " + e.getKey() + " failed: " + ex);
                    scenarios.putObject(e.getKey()).put("failed", String.valueOf(ex.getMessage()));
                }
                System.err.printf(
                        "bench: scenario %s took %.0f s: %s%n",
                        e.getKey(), (System.nanoTime() - t) / 1e9, scenarios.get(e.getKey()));
            }
        } finally {
            cleanUp(work, failed);
        }
        if (scenarios.path("11").has("batch_1000") && scenarios.path("8").has("pipelined")) {
            double raw =
                    scenarios.get("8").get("pipelined").get("records_per_s").asDouble();
            ObjectNode batch = (ObjectNode) scenarios.get("11");
            for (String part : List.of("batch_100", "batch_1000")) {
                double obs = batch.get(part).get("observations_per_s").asDouble();
                batch.put(part + "_to_raw_pipelined_pct", pct(obs, raw));
            }
        }
        if (scenarios.has("2") && scenarios.path("8").has("sync_16_threads")) {
            double http = scenarios
                    .get("2")
                    .path("one_monitor")
                    .path("requests_per_s")
                    .asDouble();
            double raw = scenarios
                    .get("8")
                    .get("sync_16_threads")
                    .get("records_per_s")
                    .asDouble();
            ObjectNode raw8 = (ObjectNode) scenarios.get("8");
            raw8.put("http_to_raw_sync_pct", pct(http, raw));
            double sixteen = scenarios
                    .get("2")
                    .path("16_monitors")
                    .path("requests_per_s")
                    .asDouble();
            raw8.put("http_16_monitors_to_raw_sync_pct", pct(sixteen, raw));
            double ownTopics =
                    raw8.path("sync_16_threads_16_topics").path("records_per_s").asDouble();
            if (ownTopics > 0) {
                // The same 16 waiting threads, each into its own topic, as scenario 2's 16 monitors write.
                raw8.put("http_16_monitors_to_raw_sync_16_topics_pct", pct(sixteen, ownTopics));
            }
        }
        r.put("seconds", Math.round((System.nanoTime() - t0) / 1e9));
        r.put("load_average_end", Machine.loadAverage());
        r.put("errors", errors(scenarios));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(
                out,
                BenchClient.JSON
                                .copy()
                                .enable(SerializationFeature.INDENT_OUTPUT)
                                .writeValueAsString(r) + "\n");
        String md = BenchReport.markdown(r);
        System.out.println(md);
        System.err.println("bench: results in " + out + (docs != null ? ", table in " + docs : ""));
        if (docs != null) {
            BenchReport.updateDocs(docs, md, id);
        }
        return r;
    }

    /** {@code part} as a percentage of {@code whole}, to one decimal, as every ratio in the results is given. */
    static double pct(double part, double whole) {
        return Math.round(part / whole * 1000) / 10.0;
    }

    private static ObjectNode rawProducer(Scenarios s, Servers servers, Scenarios.Sizes sizes, String runTag) {
        java.util.Map<String, String> kafka = servers.main().kafka;
        if (kafka == null) {
            ObjectNode skipped = BenchClient.JSON.createObjectNode();
            skipped.put("skipped", "the broker is not known: give --kafka with --base");
            return skipped;
        }
        if (s.lastParallelMonitor == null) {
            s.parallelPublish(); // the record to copy comes from scenario 2's monitor
        }
        ObjectNode out = RawProducer.run(kafka, s.lastParallelMonitor, "mp.bench-raw-" + runTag, sizes);
        return out;
    }

    /**
     * Scenario 10, last, on the main server (a fresh one with {@code --scenarios 10}; earlier scenarios leave only idle
     * monitors behind, and it retires its own, which stops their bridges); its records of scenario 8's size when 8 ran
     * (572 bytes when it measured).
     */
    private static ObjectNode bridge(Servers servers, Scenarios.Sizes sizes, String runTag, ObjectNode done) {
        Target t = servers.main();
        if (t.kafka == null) {
            ObjectNode skipped = BenchClient.JSON.createObjectNode();
            skipped.put("skipped", "the broker is not known: give --kafka with --base");
            return skipped;
        }
        int bytes = done.path("8").path("record_bytes").asInt(RECORD_BYTES);
        return new BridgeBench(sizes, runTag, t, bytes).run();
    }

    /** The scenarios that measure the main server, which {@code --warm-server} warms up before the first of them. */
    static final java.util.Set<String> MAIN_SERVER_SCENARIOS = java.util.Set.of("1", "2", "3", "4", "5", "11", "12");

    /** {@code --warm-server}: 180 s for a full run on a server this run starts, else none unless asked for. */
    static java.time.Duration warmBudget(Map<String, String> o, boolean quick, URI base) {
        String v = o.get("warm-server");
        if (v == null) {
            return quick || base != null ? java.time.Duration.ZERO : java.time.Duration.ofSeconds(180);
        }
        try {
            long seconds = Long.parseLong(v.trim());
            if (seconds < 0) {
                throw new NumberFormatException();
            }
            return java.time.Duration.ofSeconds(seconds);
        } catch (NumberFormatException e) {
            throw new BenchError("--warm-server takes a number of seconds, not " + v + "\n" + USAGE);
        }
    }

    /**
     * Scenario 13's numbers of gateways: {@code N} is 1 to N (default 3), a comma list is those; with {@code --quick}
     * only N (default 2).
     */
    static List<Integer> gatewayCounts(String option, boolean quick) {
        List<Integer> counts = new ArrayList<>();
        try {
            if (option != null && option.contains(",")) {
                for (String n : option.split(",")) {
                    counts.add(Integer.parseInt(n.trim()));
                }
            } else {
                int n = option == null ? (quick ? 2 : 3) : Integer.parseInt(option.trim());
                for (int i = quick ? n : 1; i <= n; i++) {
                    counts.add(i);
                }
            }
        } catch (NumberFormatException e) {
            throw new BenchError("--gateways takes a number or a comma list of numbers, not " + option + "\n" + USAGE);
        }
        if (counts.isEmpty() || counts.stream().anyMatch(n -> n < 1 || n > 16)) {
            throw new BenchError("--gateways: between 1 and 16 gateways, not " + option + "\n" + USAGE);
        }
        return counts;
    }

    /** The size of the record scenario 8 copies (key, headers and value of a publish): what it measured every run. */
    static final int RECORD_BYTES = 572;

    /** Every {@code errors} count in the tree, plus one for each scenario that failed outright. */
    static long errors(JsonNode node) {
        long n = 0;
        if (node.isObject()) {
            var it = node.fields();
            while (it.hasNext()) {
                var e = it.next();
                if (e.getKey().equals("errors") && e.getValue().isNumber()) {
                    n += e.getValue().asLong();
                } else if (e.getKey().equals("failed")) {
                    n += 1;
                } else {
                    n += errors(e.getValue());
                }
            }
        }
        return n;
    }

    private static void cleanUp(Path work, boolean keepLogs) {
        try (Stream<Path> paths = Files.walk(work)) {
            paths.sorted(Comparator.reverseOrder())
                    .filter(p -> !keepLogs || !p.toString().contains("server-logs") && !p.equals(work))
                    .forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (keepLogs) {
            System.err.println("bench: server logs kept in " + work.resolve("server-logs"));
        }
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        List<String> flags = List.of("quick", "no-docs", "help");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h")) {
                a = "--help";
            }
            if (!a.startsWith("--")) {
                throw new BenchError("unexpected argument " + a + "\n" + USAGE);
            }
            String name = a.substring(2);
            int eq = name.indexOf('=');
            if (eq >= 0) {
                o.put(name.substring(0, eq), name.substring(eq + 1));
            } else if (flags.contains(name)) {
                o.put(name, "true");
            } else if (i + 1 < args.length) {
                o.put(name, args[++i]);
            } else {
                throw new BenchError("--" + name + " needs a value\n" + USAGE);
            }
        }
        List<String> known = new ArrayList<>(flags);
        known.addAll(List.of(
                "backlog",
                "idle-settle",
                "warm-server",
                "scenarios",
                "base",
                "kafka",
                "out",
                "docs",
                "server-opts",
                "jar",
                "root",
                "gateways"));
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                throw new BenchError("unknown option --" + k + "\n" + USAGE);
            }
        }
        return o;
    }
}
