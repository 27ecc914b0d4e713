package io.monitorbackbone.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Scenario 10, the Kafka bridge (docs/adr/0015-bridge.md): a plain Kafka producer, which knows nothing of the protocol,
 * writes JSON records of scenario 8's size to source topics that bridged monitors read.
 *
 * <ul>
 *   <li>The raw producer's pipelined rate for that same record, on the same broker in the same run, before the bridges
 *       and again after them: the mean of the two is the ceiling the bridged rates are ratios of.
 *   <li>Unmeasured as a target: one monitor bridges bursts of twice the one-monitor burst until the JIT's compilers
 *       have settled (three minutes at most), so that what follows times the bridge's compiled code rather than its
 *       compilation.
 *   <li>Bridged records per second into one monitor and into 16 (each its own one-partition source topic): once every
 *       bridge has bridged its warm-up records, the producer pipelines the burst, and the time runs from its first send
 *       to the moment a committed reader of the monitors' logs has seen the last record's observation. The producer
 *       runs in the bench's JVM on the same cores as the server, so this rate is bounded by both; the next is not.
 *   <li>The same bridges paused, a backlog of as many records written to their sources, the bridges resumed: the time
 *       from the first of them seen in a log to the last, without the producer writing on the same cores meanwhile.
 *   <li>The latency from a source append (one record, the producer's acknowledgement awaited) to the answer of a pull
 *       parked with {@code wait=20} on a caught-up subscription.
 * </ul>
 */
final class BridgeBench {
    /** Distinct keys (the observations' subjects) the records cycle through, as scenario 2's 16 connections do. */
    private static final int KEYS = 16;

    private static final Duration GENEROUS = Duration.ofMinutes(10);

    private final Scenarios.Sizes sizes;
    private final String run;
    private final Target t;
    private final int recordBytes;
    private final List<String> topics = new ArrayList<>();
    private final List<BenchClient.Monitor> monitors = new ArrayList<>();

    /** @param recordBytes key plus value of each source record: scenario 8's record size */
    BridgeBench(Scenarios.Sizes sizes, String run, Target t, int recordBytes) {
        this.sizes = sizes;
        this.run = run;
        this.t = t;
        this.recordBytes = recordBytes;
    }

    ObjectNode run() {
        ObjectNode out = BenchClient.JSON.createObjectNode();
        out.put("record_bytes", recordBytes);
        out.put("source_partitions", 1);
        try (Admin admin = Admin.create(new HashMap<String, Object>(t.kafka));
                KafkaProducer<byte[], byte[]> producer = RawProducer.producer(t.kafka)) {
            try {
                String raw = topic(admin, "raw");
                RawProducer.pipelined(out.putObject("raw_pipelined"), producer, record(raw, 0), sizes, t);
                admin.deleteTopics(List.of(raw)).all().get(30, TimeUnit.SECONDS);
                topics.remove(raw);

                jitWarmUp(out.putObject("jit_warm_up"), admin, producer, sizes.bridgeOne() * 2);
                throughput(out.putObject("one_monitor"), admin, producer, 1, sizes.bridgeOne());
                throughput(out.putObject("16_monitors"), admin, producer, KEYS, sizes.bridgeEach() * KEYS);
                latency(out.putObject("latency"), admin, producer);
                // The ceiling again, after the bridges: a machine whose load changed during the run shows here.
                String again = topic(admin, "raw-after");
                RawProducer.pipelined(out.putObject("raw_pipelined_after"), producer, record(again, 0), sizes, t);
            } finally {
                // Retired monitors stop their bridges, so nothing reads on behind later scenarios (or a --base server).
                try (BenchClient api = new BenchClient(t.base)) {
                    for (BenchClient.Monitor m : monitors) {
                        api.retire(m);
                    }
                }
                if (!topics.isEmpty()) {
                    admin.deleteTopics(topics);
                }
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new BenchError("scenario 10's topics: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
        double raw = (out.at("/raw_pipelined/records_per_s").asDouble()
                        + out.at("/raw_pipelined_after/records_per_s").asDouble())
                / 2;
        out.put("raw_pipelined_mean_records_per_s", Math.round(raw));
        for (String part : List.of("one_monitor", "16_monitors")) {
            ObjectNode p = (ObjectNode) out.get(part);
            p.put("to_raw_pipelined_pct", Bench.pct(p.get("records_per_s").asDouble(), raw));
            if (p.get("backlog") instanceof ObjectNode b) {
                b.put("to_raw_pipelined_pct", Bench.pct(b.get("records_per_s").asDouble(), raw));
            }
        }
        return out;
    }

    private String topic(Admin admin, String name) {
        String topic = "bench-bridge-" + run + "-" + name;
        try {
            TopicLayout.createIfMissing(admin, new NewTopic(topic, 1, (short) 1), Duration.ofSeconds(30));
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new BenchError("creating " + topic + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
        topics.add(topic);
        return topic;
    }

    /** Key {@code s-NN} (NN the record's number modulo 16) and a JSON value padded to {@code recordBytes} in all. */
    private ProducerRecord<byte[], byte[]> record(String topic, long n) {
        byte[] key = String.format("s-%02d", n % KEYS).getBytes(UTF_8);
        String head = "{\"n\":1,\"pad\":\"";
        int pad = Math.max(0, recordBytes - key.length - head.length() - 2);
        char[] x = new char[pad];
        Arrays.fill(x, 'x');
        byte[] value = (head + new String(x) + "\"}").getBytes(UTF_8);
        return new ProducerRecord<>(topic, 0, key, value);
    }

    /**
     * A bridge's code compiled before anything is timed: a monitor of its own bridges bursts of {@code n} records (twice
     * the one-monitor burst), each read to the end of its log, until a burst's JIT compilers used at most
     * {@link Scenarios#SETTLED_JIT_SHARE} of a core, as {@code --warm-server} decides for the HTTP scenarios, or
     * {@code Sizes.bridgeJit} has passed (one burst at least; a {@code --base} server, whose compilers the bench cannot
     * see, for the whole budget). A server that has bridged nothing yet compiles the bridge's, the fold's and the
     * broker's transactional paths for minutes on two cores (docs/benchmarks.md, 2026-12-07), and the scenario measured
     * the JIT as much as the bridge; a backbone bridges for days. The first burst is reported as the cold figure, the
     * last as the warm one.
     */
    private void jitWarmUp(ObjectNode out, Admin admin, KafkaProducer<byte[], byte[]> producer, long n)
            throws InterruptedException {
        String source = topic(admin, "jit");
        BenchClient.Monitor m;
        try (BenchClient api = new BenchClient(t.base)) {
            m = api.createBridged("bridgejit-" + run, source);
            monitors.add(m);
        }
        long t0 = System.nanoTime();
        long until = t0 + sizes.bridgeJit().toNanos();
        long errors = 0;
        int bursts = 0;
        boolean settled = false;
        com.fasterxml.jackson.databind.node.ArrayNode jitShares = out.putArray("burst_jit_share");
        try (LogWatch watch = new LogWatch(t.kafka, List.of(Topics.obs(m.id())))) {
            do {
                watch.expect(bursts * n, (bursts + 1) * n);
                double s0 = t.cpuSeconds();
                double j0 = t.jitCpuSeconds();
                long b0 = System.nanoTime();
                errors += send(producer, List.of(source), n);
                long[] seen = watch.await("the warm-up records bridged");
                double seconds = (seen[1] - b0) / 1e9;
                double server = t.cpuSeconds() - s0;
                double jitShare = (t.jitCpuSeconds() - j0) / ((System.nanoTime() - b0) / 1e9);
                jitShares.add(Latencies.round(jitShare));
                settled = jitShare <= Scenarios.SETTLED_JIT_SHARE;
                ObjectNode burst = out.putObject(bursts == 0 ? "first" : "last");
                burst.put("records", n);
                burst.put("seconds", Latencies.round(seconds));
                burst.put("records_per_s", Math.round(n / seconds));
                burst.put("server_cpu_us_per_record", Latencies.round(server * 1e6 / n));
                bursts++;
            } while (!settled && System.nanoTime() < until);
            out.put("bursts", bursts);
            out.put("seconds", Latencies.round((System.nanoTime() - t0) / 1e9));
            out.put("settled", settled);
            out.put("errors", errors + watch.other.get());
        }
    }

    /** (a): warm every bridge up, then pipeline {@code total} records over the sources and time the last one in. */
    private void throughput(ObjectNode out, Admin admin, KafkaProducer<byte[], byte[]> producer, int count, long total)
            throws InterruptedException {
        List<String> sources = new ArrayList<>();
        List<String> logs = new ArrayList<>();
        // A connection of its own: the server closes a keep-alive connection that idles through a long burst.
        try (BenchClient api = new BenchClient(t.base)) {
            for (int i = 0; i < count; i++) {
                String source = topic(admin, "m" + count + "-" + i);
                BenchClient.Monitor m = api.createBridged("bridge" + count + "-" + i + "-" + run, source);
                monitors.add(m);
                sources.add(source);
                logs.add(Topics.obs(m.id()));
            }
        }
        out.put("monitors", count);
        out.put("records", total);
        try (LogWatch watch = new LogWatch(t.kafka, logs);
                StateWatch states = new StateWatch(t.kafka)) {
            int warm = sizes.bridgeWarm();
            long w0 = System.nanoTime();
            watch.expect(0, warm);
            long errors = send(producer, sources, warm * (long) count);
            watch.await("the bridges' warm-up records");
            out.put("warm_up_per_monitor", warm);
            out.put("warm_up_s", Latencies.round((System.nanoTime() - w0) / 1e9));

            watch.expect(warm, warm + total / count);
            double c0 = Load.clientCpuSeconds();
            double s0 = t.cpuSeconds();
            long t0 = System.nanoTime();
            out.put("from_epoch_ms", System.currentTimeMillis()); // the window, for --jfr-summary
            errors += send(producer, sources, total);
            long produced = System.nanoTime();
            long[] seen = watch.await("every record bridged");
            double server = t.cpuSeconds() - s0;
            double client = Load.clientCpuSeconds() - c0;
            double seconds = (seen[1] - t0) / 1e9;
            out.put("to_epoch_ms", System.currentTimeMillis() - (System.nanoTime() - seen[1]) / 1_000_000);
            out.put("records_per_s", Math.round(total / seconds));
            out.put("seconds", Latencies.round(seconds));
            out.put("producer_s", Latencies.round((produced - t0) / 1e9));
            out.put("producer_records_per_s", Math.round(total / ((produced - t0) / 1e9)));
            out.put("first_bridged_after_ms", Latencies.round((seen[0] - t0) / 1e6));
            out.put("client_cpu_s", Latencies.round(client));
            out.put("server_cpu_s", Latencies.round(server));
            out.put("server_cpu_us_per_record", Latencies.round(server * 1e6 / total));
            // The records are in the logs; the projector may still be folding them. Until every monitor's state in
            // mp.state is at its log's last seq, the server's CPU goes on counting, so a fold that lags shows in it.
            long foldedAt = states.await(watch.lastSeqs(), "every bridged record folded into mp.state");
            double serverFolded = t.cpuSeconds() - s0;
            double foldedSeconds = (foldedAt - t0) / 1e9;
            out.put("folded_s", Latencies.round(foldedSeconds));
            out.put("folded_records_per_s", Math.round(total / foldedSeconds));
            out.put("server_cpu_s_to_folded", Latencies.round(serverFolded));
            out.put("server_cpu_us_per_record_to_folded", Latencies.round(serverFolded * 1e6 / total));

            // (c) The same monitors again, their sources holding a backlog: what the bridges can do when the producer,
            // which shares the machine's cores with the server in this bench, is not writing at the same time.
            errors += backlog(out.putObject("backlog"), admin, producer, sources, watch, warm + total / count, total);
            out.put("other_rows", watch.other.get());
            // A rejected or undecodable row means the mapping refused the bench's records: then no bridged rate.
            out.put("errors", errors + watch.other.get());
        }
    }

    /**
     * The bridges paused, {@code total} records written to their sources, the bridges resumed: the time runs from the
     * first of those records seen in a monitor's log to the last. {@code base} is each log's count of bench rows so far.
     */
    private long backlog(
            ObjectNode out,
            Admin admin,
            KafkaProducer<byte[], byte[]> producer,
            List<String> sources,
            LogWatch watch,
            long base,
            long total)
            throws InterruptedException {
        List<BenchClient.Monitor> mine = monitors.subList(monitors.size() - sources.size(), monitors.size());
        try (BenchClient api = new BenchClient(t.base)) {
            long p0 = System.nanoTime();
            for (BenchClient.Monitor m : mine) {
                api.pause(m);
            }
            // A pause stops a bridge after its transaction in flight, some time after the pause's answer: a stopped
            // bridge has left its group.
            stopped(admin, mine);
            out.put("pause_to_stopped_ms", Latencies.round((System.nanoTime() - p0) / 1e6));
            watch.quiet(Duration.ofSeconds(1), "the paused bridges");
            long before = watch.rows();
            long w0 = System.nanoTime();
            long errors = send(producer, sources, total);
            out.put("producer_records_per_s", Math.round(total / ((System.nanoTime() - w0) / 1e9)));
            watch.quiet(Duration.ofSeconds(1), "the paused bridges");
            if (watch.rows() != before) {
                throw new BenchError("a paused bridge went on writing: " + (watch.rows() - before) + " rows");
            }
            watch.expect(base, base + total / sources.size());
            double s0 = t.cpuSeconds();
            long r0 = System.nanoTime();
            for (BenchClient.Monitor m : mine) {
                api.resume(m);
            }
            long[] seen = watch.await("the backlog bridged");
            double server = t.cpuSeconds() - s0;
            double seconds = (seen[1] - seen[0]) / 1e9;
            out.put("records", total);
            // The window, for --jfr-summary.
            long nowNs = System.nanoTime();
            long nowMs = System.currentTimeMillis();
            out.put("from_epoch_ms", nowMs - (nowNs - seen[0]) / 1_000_000);
            out.put("to_epoch_ms", nowMs - (nowNs - seen[1]) / 1_000_000);
            out.put("resume_to_first_ms", Latencies.round((seen[0] - r0) / 1e6));
            out.put("seconds", Latencies.round(seconds));
            out.put("records_per_s", Math.round(total / seconds));
            out.put("server_cpu_s", Latencies.round(server));
            out.put("server_cpu_us_per_record", Latencies.round(server * 1e6 / total));
            return errors;
        }
    }

    /** Until each monitor's bridge group has no member: its bridge has stopped. */
    private static void stopped(Admin admin, List<BenchClient.Monitor> paused) throws InterruptedException {
        List<String> groups = paused.stream()
                .map(m -> io.monitorbackbone.bridge.BridgeApp.GROUP_PREFIX + m.id())
                .toList();
        long until = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < until) {
            try {
                if (admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS).values().stream()
                        .allMatch(g -> g.members().isEmpty())) {
                    return;
                }
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new BenchError("describing the bridges' groups: " + e, e);
            }
            Scenarios.sleep(100);
        }
        throw new BenchError("the paused bridges still in their groups after a minute");
    }

    /** Pipelines {@code n} records round robin over {@code sources}; returns the count of failed sends. */
    private long send(KafkaProducer<byte[], byte[]> producer, List<String> sources, long n)
            throws InterruptedException {
        Semaphore inFlight = new Semaphore(4096);
        AtomicLong errors = new AtomicLong();
        List<List<ProducerRecord<byte[], byte[]>>> byKey = new ArrayList<>();
        for (String s : sources) {
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                records.add(record(s, k));
            }
            byKey.add(records);
        }
        for (long i = 0; i < n; i++) {
            inFlight.acquire();
            producer.send(byKey.get((int) (i % sources.size())).get((int) (i / sources.size() % KEYS)), (md, e) -> {
                if (e != null) {
                    errors.incrementAndGet();
                }
                inFlight.release();
            });
        }
        producer.flush();
        return errors.get();
    }

    /** (b): one record appended and acknowledged, then the time until a pull parked on the monitor answers. */
    private void latency(ObjectNode out, Admin admin, KafkaProducer<byte[], byte[]> producer) {
        String source = topic(admin, "wake");
        try (BenchClient api = new BenchClient(t.base);
                BenchClient parked = new BenchClient(t.base)) {
            BenchClient.Monitor m = api.createBridged("bridgewake-" + run, source);
            monitors.add(m);
            BenchClient.Sub s = api.subscribe(m, "agent:bridge-wake", null);
            Latencies fromAck = new Latencies();
            Latencies fromSend = new Latencies();
            long errors = 0;
            long early = 0;
            String sample = null;
            int warm = 5;
            // The first record is bridged once the bridge's group has its partition, a few seconds after the create.
            producer.send(record(source, 0)).get(30, TimeUnit.SECONDS);
            awaitRows(api, s);
            for (int round = 0; round < sizes.bridgeRounds() + warm; round++) {
                Scenarios.catchUp(api, s);
                CompletableFuture<Long> answered = new CompletableFuture<>();
                CompletableFuture<HttpConn.Response> page = CompletableFuture.supplyAsync(() -> {
                    HttpConn.Response r = parked.pull(s, 50, 20);
                    answered.complete(System.nanoTime());
                    return r;
                });
                Scenarios.sleep(100); // the pull reads nothing and parks
                long sent = System.nanoTime();
                producer.send(record(source, round)).get(30, TimeUnit.SECONDS);
                long acked = System.nanoTime();
                HttpConn.Response r = page.get(30, TimeUnit.SECONDS);
                long woke = answered.get();
                JsonNode json = r.ok() ? BenchClient.json(r) : null;
                if (json == null || json.get("observations").isEmpty()) {
                    errors++;
                    sample = "pull " + r.status() + " " + BenchClient.abbreviated(r.text());
                    continue;
                }
                BenchClient.must(api.ack(s, json.get("next").asLong()), "ack");
                if (round < warm) {
                    continue;
                }
                fromAck.add(woke - acked);
                fromSend.add(woke - sent);
                early += woke < acked ? 1 : 0;
            }
            fromAck.describe(out, "after_append_acked_");
            fromSend.describe(out, "after_append_sent_");
            out.put("pull_answered_before_ack", early);
            out.put("errors", errors);
            if (sample != null) {
                out.put("error_sample", sample);
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new BenchError("a source append or a parked pull did not finish: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
    }

    /** Until the subscription's pull shows a bridged observation; the bridge is then running. */
    private static void awaitRows(BenchClient api, BenchClient.Sub s) {
        long until = System.nanoTime() + GENEROUS.toNanos();
        while (System.nanoTime() < until) {
            JsonNode page = BenchClient.must(api.pull(s, 200, 1), "pull");
            for (JsonNode o : page.get("observations")) {
                if (BenchClient.TYPE.equals(o.path("type").asText())) {
                    return;
                }
            }
        }
        throw new BenchError("the bridge wrote nothing into its monitor within " + GENEROUS);
    }

    /**
     * A committed reader of the monitors' logs in the bench's JVM: counts each log's bench-type rows and notes when the
     * rows it was told to expect came in. Rows of another type than the bench's and the {@code configured} row of the
     * create (a rejected row, an undecodable one, a note about the source) are counted as {@code other}.
     */
    private static final class LogWatch implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final Map<String, long[]> counts = new HashMap<>();
        private final Map<String, Long> lastOffsets = new HashMap<>();
        private final Thread thread;
        private volatile boolean running = true;
        private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        final AtomicLong other = new AtomicLong();
        private long from;
        private long to;
        private long firstAt;
        private long lastAt;

        LogWatch(Map<String, String> kafka, List<String> logs) {
            Map<String, Object> c = new HashMap<>(kafka);
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
            c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
            c.put(ConsumerConfig.CLIENT_ID_CONFIG, "mp-bench-bridge-watch");
            consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> tps = new ArrayList<>();
            for (String log : logs) {
                tps.add(new TopicPartition(log, 0));
                counts.put(log, new long[1]);
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            thread = new Thread(this::loop, "bench-bridge-watch");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            try {
                while (running) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                        synchronized (this) {
                            lastOffsets.merge(r.topic(), r.offset(), Math::max);
                        }
                        String type = header(r, "ce_type");
                        if (BenchClient.TYPE.equals(type)) {
                            long now = System.nanoTime();
                            synchronized (this) {
                                long n = ++counts.get(r.topic())[0];
                                if (n == from + 1 && firstAt == 0) {
                                    firstAt = now;
                                }
                                if (n == to) {
                                    lastAt = Math.max(lastAt, now);
                                }
                            }
                        } else if (!"ai.mentu.monitor.configured".equals(type)) {
                            other.incrementAndGet();
                        }
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                failure.set(e);
            }
        }

        /** The next rows each log gets are its rows {@code from + 1} to {@code to}: their arrivals are timed. */
        synchronized void expect(long from, long to) {
            this.from = from;
            this.to = to;
            this.firstAt = 0;
            this.lastAt = 0;
        }

        /** Returns once no log has had a new row for {@code still}; a bridge still writing after a minute fails. */
        void quiet(Duration still, String what) {
            long until = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            long seen = -1;
            long since = System.nanoTime();
            while (System.nanoTime() < until) {
                long now;
                synchronized (this) {
                    now = lastOffsets.values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
                }
                if (now != seen) {
                    seen = now;
                    since = System.nanoTime();
                } else if (System.nanoTime() - since >= still.toNanos()) {
                    return;
                }
                Scenarios.sleep(20);
            }
            throw new BenchError(what + ": still writing after a minute");
        }

        /** The bench rows read so far, over all logs. */
        synchronized long rows() {
            return counts.values().stream().mapToLong(c -> c[0]).sum();
        }

        /** Each monitor's last seq read so far (its last record's offset + 1), by monitor id. */
        synchronized Map<String, Long> lastSeqs() {
            Map<String, Long> out = new HashMap<>();
            lastOffsets.forEach((topic, offset) -> out.put(Topics.monitorOf(topic), offset + 1));
            return out;
        }

        /** Waits until every log holds its expected rows; returns when the first and the last of them came in. */
        long[] await(String what) {
            long until = System.nanoTime() + GENEROUS.toNanos();
            while (System.nanoTime() < until) {
                if (failure.get() != null) {
                    throw new BenchError("reading the monitors' logs: " + failure.get(), failure.get());
                }
                synchronized (this) {
                    if (counts.values().stream().allMatch(c -> c[0] >= to)) {
                        return new long[] {firstAt, lastAt};
                    }
                }
                Scenarios.sleep(5);
            }
            throw new BenchError(what + ": not in the monitors' logs within " + GENEROUS);
        }

        private static String header(ConsumerRecord<byte[], byte[]> r, String key) {
            Header h = r.headers().lastHeader(key);
            return h == null || h.value() == null ? null : new String(h.value(), UTF_8);
        }

        @Override
        public void close() {
            running = false;
            consumer.wakeup();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            consumer.close();
        }
    }

    /** A reader of {@code mp.state} in the bench's JVM: each monitor's {@code last_seq} as the projector publishes it. */
    private static final class StateWatch implements AutoCloseable {
        private final KafkaConsumer<String, byte[]> consumer;
        private final Map<String, Long> lastSeq = new HashMap<>();

        StateWatch(Map<String, String> kafka) {
            Map<String, Object> c = new HashMap<>(kafka);
            c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
            c.put(ConsumerConfig.CLIENT_ID_CONFIG, "mp-bench-state-watch");
            consumer = new KafkaConsumer<>(
                    c, new org.apache.kafka.common.serialization.StringDeserializer(), new ByteArrayDeserializer());
            List<TopicPartition> tps = consumer.partitionsFor(Topics.STATE).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
        }

        /** Polls until every named monitor's state is at or past its seq; returns when it saw the last of them. */
        long await(Map<String, Long> targets, String what) {
            long until = System.nanoTime() + GENEROUS.toNanos();
            while (System.nanoTime() < until) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(20))) {
                    if (r.value() != null && targets.containsKey(r.key())) {
                        lastSeq.merge(
                                r.key(),
                                io.monitorbackbone.protocol.Json.read(r.value())
                                        .path("last_seq")
                                        .asLong(),
                                Math::max);
                    }
                }
                if (targets.entrySet().stream().allMatch(e -> lastSeq.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
                    return System.nanoTime();
                }
            }
            throw new BenchError(what + ": not within " + GENEROUS + " (" + lastSeq + " of " + targets + ")");
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
