package io.monitorbackbone.bench;

import io.monitorbackbone.testsupport.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A server under load: one this run started (then its pid gives RSS and CPU time) or one given with {@code --base}
 * (then only HTTP). {@code kafka} is the broker it uses, when known.
 */
final class Target implements AutoCloseable {
    final URI base;
    final String kafka;
    private final ServerProcess process;

    private Target(URI base, String kafka, ServerProcess process) {
        this.base = base;
        this.kafka = kafka;
        this.process = process;
    }

    static Target external(URI base, String kafka) {
        return new Target(base, kafka, null);
    }

    /** The packaged gateway with its embedded broker, or on {@code bootstrap} when that is not null. */
    static Target start(Path jar, List<String> jvmOptions, String bootstrap) {
        ServerProcess.Builder b = ServerProcess.builder().jar(jar).jvmOptions(jvmOptions);
        if (bootstrap != null) {
            b.env("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
        }
        ServerProcess p = b.start();
        return new Target(p.baseUri(), bootstrap != null ? bootstrap : "127.0.0.1:" + p.kafkaPort(), p);
    }

    boolean started() {
        return process != null;
    }

    long pid() {
        return process.pid();
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
