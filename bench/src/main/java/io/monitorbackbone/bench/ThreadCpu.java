package io.monitorbackbone.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * CPU seconds of each thread of a process this run started, from {@code /proc/<pid>/task/<tid>/stat}, named by the
 * JVM's own thread names ({@code jcmd Thread.print} maps each native id to its full name; the kernel's name is cut at
 * 15 characters and is used only for threads the JVM does not list).
 */
final class ThreadCpu {
    private static final Pattern THREAD = Pattern.compile("^\"(.*)\" .*\\bnid=(0x[0-9a-fA-F]+|\\d+)");

    private ThreadCpu() {}

    /** Thread id to CPU seconds (user + system) used so far. */
    static Map<Long, Double> sample(long pid) {
        Map<Long, Double> out = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            tasks.forEach(t -> {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    out.put(Long.parseLong(t.getFileName().toString()), ticks / 100.0); // USER_HZ is 100 on Linux
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read: it used nothing more
                }
            });
        } catch (IOException e) {
            throw new BenchError("cannot read the threads of " + pid, e);
        }
        return out;
    }

    /** Thread id to name: the JVM's name where it lists the thread, else the kernel's (cut) name. */
    static Map<Long, String> names(long pid, Iterable<Long> tids) {
        Map<Long, String> out = new HashMap<>();
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        String dump = Machine.run(Path.of("."), jcmd, String.valueOf(pid), "Thread.print");
        for (String line : dump.lines().toList()) {
            Matcher m = THREAD.matcher(line);
            if (m.find()) {
                String nid = m.group(2);
                out.put(nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid), m.group(1));
            }
        }
        for (long tid : tids) {
            if (!out.containsKey(tid)) {
                try {
                    out.put(
                            tid,
                            Files.readString(Path.of("/proc/" + pid + "/task/" + tid + "/comm"))
                                    .trim());
                } catch (IOException e) {
                    out.put(tid, "?");
                }
            }
        }
        return out;
    }
}
