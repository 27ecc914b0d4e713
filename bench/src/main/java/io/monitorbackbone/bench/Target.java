package io.monitorbackbone.bench;

import io.monitorbackbone.binding.KafkaClients;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A server under load: one this run started (then its pid gives RSS and CPU time) or one given with {@code --base}
 * (then only HTTP). {@code kafka} is the client properties of the broker it uses, when known (the embedded broker's
 * user included), and {@code kafkaEnv} what a second server needs to share that broker.
 */
final class Target implements AutoCloseable {
    final URI base;
    final Map<String, String> kafka;
    final Map<String, String> kafkaEnv;
    private final ServerProcess process;
    private final CompilerCpu jit = new CompilerCpu();

    private Target(URI base, Map<String, String> kafka, Map<String, String> kafkaEnv, ServerProcess process) {
        this.base = base;
        this.kafka = kafka;
        this.kafkaEnv = kafkaEnv;
        this.process = process;
    }

    /** A server given with {@code --base}; its broker {@code kafka} (or null), with this process's {@code MP_KAFKA_*}. */
    static Target external(URI base, String kafka) {
        if (kafka == null) {
            return new Target(base, null, null, null);
        }
        Map<String, String> client = new TreeMap<>(KafkaClients.passThroughFrom(System.getenv()));
        client.put("bootstrap.servers", kafka);
        return new Target(base, client, null, null);
    }

    /**
     * Not a server: a broker of these client properties, which {@link #start} can give a server as {@code shared}.
     */
    static Target broker(Map<String, String> clientProperties) {
        return new Target(null, clientProperties, ServerProcess.brokerEnv(clientProperties), null);
    }

    /** The packaged gateway with its embedded broker, or on {@code shared}'s broker when that is not null. */
    static Target start(Path jar, List<String> jvmOptions, Target shared) {
        return start(jar, jvmOptions, shared, Map.of());
    }

    /** As {@link #start(Path, List, Target)}, with more environment (e.g. {@code MP_ROLES}). */
    static Target start(Path jar, List<String> jvmOptions, Target shared, Map<String, String> env) {
        ServerProcess.Builder b = ServerProcess.builder().jar(jar).jvmOptions(jvmOptions);
        if (shared != null) {
            b.env(shared.kafkaEnv);
        }
        b.env(env);
        ServerProcess p = b.start();
        return shared != null
                ? new Target(p.baseUri(), shared.kafka, shared.kafkaEnv, p)
                : new Target(p.baseUri(), p.kafkaClientProperties(), p.sharedBrokerEnv(), p);
    }

    boolean started() {
        return process != null;
    }

    long pid() {
        return process.pid();
    }

    /** The management interface ({@code /q/metrics}, {@code /q/health/ready}); null for a server given with --base. */
    URI management() {
        return process == null ? null : process.managementUri();
    }

    /** The HTTP port the server's API listens on. */
    int port() {
        return base.getPort();
    }

    /** VmRSS and VmHWM of the server's JVM in MiB. */
    double[] rssMib() {
        double rss = 0;
        double hwm = 0;
        for (String line : lines("/proc/" + pid() + "/status")) {
            if (line.startsWith("VmRSS:")) {
                rss = kib(line) / 1024.0;
            } else if (line.startsWith("VmHWM:")) {
                hwm = kib(line) / 1024.0;
            }
        }
        return new double[] {rss, hwm};
    }

    /** CPU seconds (user + system) the server's JVM has used so far; NaN for a server this run did not start. */
    double cpuSeconds() {
        if (!started()) {
            return Double.NaN;
        }
        return cpuSecondsOf(pid());
    }

    /**
     * CPU seconds the server's JIT compiler threads have used so far (their kernel names start with {@code C1
     * CompilerThre} or {@code C2 CompilerThre}), including those that have ended since ({@link CompilerCpu});
     * NaN for a server this run did not start. A window whose share of this is large measured a server that was still
     * compiling, not one in its steady state.
     */
    double jitCpuSeconds() {
        if (!started()) {
            return Double.NaN;
        }
        long pid = pid();
        java.util.Map<Long, Double> compilers = new java.util.HashMap<>();
        for (java.util.Map.Entry<Long, Double> e : ThreadCpu.sample(pid).entrySet()) {
            try {
                String comm = java.nio.file.Files.readString(
                        java.nio.file.Path.of("/proc/" + pid + "/task/" + e.getKey() + "/comm"));
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                    compilers.put(e.getKey(), e.getValue());
                }
            } catch (java.io.IOException gone) {
                // ended between the sample and this read; a compiler seen before keeps its last reading in jit
            }
        }
        return jit.total(pid, compilers);
    }

    static double cpuSecondsOf(long pid) {
        String stat = lines("/proc/" + pid + "/stat").get(0);
        // Fields after the command name, which is in parentheses and may contain spaces.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return ticks / 100.0; // USER_HZ is 100 on Linux
    }

    String logTail() {
        if (process == null) {
            return "";
        }
        List<String> lines = process.log().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static long kib(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }

    private static List<String> lines(String path) {
        try {
            return Files.readAllLines(Path.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (process != null) {
            process.close();
        }
    }
}
