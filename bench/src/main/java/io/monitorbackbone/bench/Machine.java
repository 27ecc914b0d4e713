package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What a number depends on besides the code: the machine, the JVM, the commit, and how busy the machine was. */
final class Machine {
    private Machine() {}

    static ObjectNode describe(Path root) {
        ObjectNode m = BenchClient.JSON.createObjectNode();
        m.put("nproc", Runtime.getRuntime().availableProcessors());
        m.put("cpu", grep("/proc/cpuinfo", "model name"));
        String mem = grep("/proc/meminfo", "MemTotal");
        m.put(
                "memory_gib",
                mem.isEmpty()
                        ? 0
                        : Math.round(Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0 * 10) / 10.0);
        m.put(
                "java",
                run(
                                root,
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "-version")
                        .lines()
                        .findFirst()
                        .orElse("?"));
        m.put("load_average", loadAverage());
        return m;
    }

    static double loadAverage() {
        return Math.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage() * 100) / 100.0;
    }

    /** The checkout's short commit; {@code unknown} outside a git checkout (a copy of the tree without {@code .git}). */
    static String commit(Path root) {
        String out = output(root, "git", "rev-parse", "--short", "HEAD");
        return out == null ? "unknown" : out.trim();
    }

    /** Whether tracked files differ from the commit; true when git cannot tell, as nothing says they do not. */
    static boolean dirty(Path root) {
        String out = output(root, "git", "status", "--porcelain", "-uno");
        return out == null || !out.isBlank();
    }

    private static String grep(String file, String key) {
        try {
            return Files.readAllLines(Path.of(file)).stream()
                    .filter(l -> l.startsWith(key))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    /** The command's output, or nothing when it could not run or failed. */
    static String run(Path dir, String... command) {
        String out = output(dir, command);
        return out == null ? "" : out;
    }

    /** The command's standard output, or null when it could not run or exited non-zero (an error is not an answer). */
    private static String output(Path dir, String... command) {
        try {
            Process p = new ProcessBuilder(List.of(command))
                    .directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            return p.waitFor() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
