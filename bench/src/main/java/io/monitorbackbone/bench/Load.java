package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop load: a fixed number of threads, each with its own keep-alive connection, each sending its next request
 * when the last one is answered. A warm-up, then a timed window in which every answer is timed and checked.
 */
final class Load {

    /** One request; a non-2xx answer is an error, and so is an exception. */
    @FunctionalInterface
    interface Op {
        HttpConn.Response run(BenchClient api, int thread, long i);
    }

    /** What a timed window did; {@code clientCpu} and {@code serverCpu} are CPU seconds spent during it. */
    record Result(
            long fromEpochMs,
            long ok,
            long errors,
            List<String> errorSamples,
            Latencies latencies,
            double seconds,
            double clientCpu,
            double serverCpu,
            double serverJitCpu,
            int reconnects) {

        double perSecond() {
            return ok / seconds;
        }

        void describe(ObjectNode into) {
            into.put("requests_per_s", Math.round(perSecond()));
            latencies.describe(into, "");
            into.put("errors", errors);
            if (!errorSamples.isEmpty()) {
                into.putPOJO("error_samples", errorSamples);
            }
            into.put("window_s", Latencies.round(seconds));
            into.put("client_cpu_s", Latencies.round(clientCpu));
            into.put("server_cpu_s", Latencies.round(serverCpu));
            into.put("server_jit_cpu_s", Latencies.round(serverJitCpu));
            into.put("reconnects", reconnects);
            into.put("from_epoch_ms", fromEpochMs);
            into.put("to_epoch_ms", fromEpochMs + Math.round(seconds * 1000));
        }
    }

    private Load() {}

    static Result run(URI base, int threads, Duration warmUp, Duration window, Target server, Op op) {
        List<Latencies> perThread = new ArrayList<>();
        AtomicLong ok = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong reconnects = new AtomicLong();
        ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();
        long start = System.nanoTime() + 50_000_000L;
        long measureFrom = start + warmUp.toNanos();
        long end = measureFrom + window.toNanos();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Latencies lat = new Latencies();
            perThread.add(lat);
            int thread = t;
            Thread worker = new Thread(
                    () -> {
                        try (BenchClient api = new BenchClient(base)) {
                            long i = 0;
                            sleepUntil(start);
                            for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                                boolean measured = now >= measureFrom;
                                String failure = null;
                                try {
                                    HttpConn.Response r = op.run(api, thread, i++);
                                    if (!r.ok()) {
                                        failure = r.status() + " " + BenchClient.abbreviated(r.text());
                                    }
                                } catch (RuntimeException e) {
                                    failure = e.toString();
                                }
                                long took = System.nanoTime() - now;
                                if (failure != null) {
                                    errors.incrementAndGet();
                                    if (samples.size() < 5) {
                                        samples.add(failure);
                                    }
                                } else if (measured) {
                                    ok.incrementAndGet();
                                    lat.add(took);
                                }
                            }
                            reconnects.addAndGet(api.http.connects() - 1);
                        } finally {
                            done.countDown();
                        }
                    },
                    "load-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        sleepUntil(measureFrom);
        long fromEpochMs = System.currentTimeMillis();
        double client0 = clientCpuSeconds();
        double server0 = server.cpuSeconds();
        double jit0 = server.jitCpuSeconds();
        sleepUntil(end);
        double client1 = clientCpuSeconds();
        double server1 = server.cpuSeconds();
        double jit1 = server.jitCpuSeconds();
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
        return new Result(
                fromEpochMs,
                ok.get(),
                errors.get(),
                List.copyOf(samples),
                Latencies.merge(perThread),
                window.toNanos() / 1e9,
                client1 - client0,
                server1 - server0,
                jit1 - jit0,
                (int) reconnects.get());
    }

    /** Sends {@code total} requests over {@code threads} connections as fast as answers come; returns the seconds taken. */
    static double count(URI base, int threads, long total, Op op) {
        AtomicLong next = new AtomicLong();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        long t0 = System.nanoTime();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(
                    () -> {
                        try (BenchClient api = new BenchClient(base)) {
                            for (long i = next.getAndIncrement();
                                    i < total && failures.isEmpty();
                                    i = next.getAndIncrement()) {
                                HttpConn.Response r = op.run(api, thread, i);
                                if (!r.ok()) {
                                    failures.add(r.status() + " " + BenchClient.abbreviated(r.text()));
                                }
                            }
                        } catch (RuntimeException e) {
                            failures.add(e.toString());
                        }
                    },
                    "fill-" + t);
            worker.setDaemon(true);
            worker.start();
            workers.add(worker);
        }
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchError("interrupted", e);
            }
        }
        if (!failures.isEmpty()) {
            throw new BenchError("loading failed: " + failures.peek());
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    static double clientCpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime()
                / 1e9;
    }

    static void sleepUntil(long nanoTime) {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            try {
                Thread.sleep(Math.max(1, left / 1_000_000), 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchError("interrupted", e);
            }
        }
    }
}
