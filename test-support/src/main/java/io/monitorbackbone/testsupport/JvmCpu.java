package io.monitorbackbone.testsupport;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * At its exit, a test JVM that started a broker or a server appends what it cost to {@code target/test-jvm-cpu.txt}:
 * its own CPU seconds (the shared broker and the tests' clients run in it), over how long. Beside the lines
 * {@link ServerProcess} prints for each server, it says where a suite's CPU goes. Read only by people.
 */
final class JvmCpu {
    private static boolean hooked;

    private JvmCpu() {}

    static synchronized void logAtExit() {
        if (hooked) {
            return;
        }
        hooked = true;
        Runtime.getRuntime().addShutdownHook(new Thread(JvmCpu::write, "test-jvm-cpu"));
    }

    private static void write() {
        Path dir = BuildDir.root();
        if (!Files.isDirectory(dir)) {
            // Removed by its owner before this JVM's exit (the bench's working directory): not made again.
            return;
        }
        ProcessHandle self = ProcessHandle.current();
        double cpu = self.info().totalCpuDuration().orElse(Duration.ZERO).toMillis() / 1000.0;
        long up = ManagementFactory.getRuntimeMXBean().getUptime() / 1000;
        String line =
                String.format("pid %d: %.1f CPU-s in %d s, %s%n", self.pid(), cpu, up, System.getProperty("user.dir"));
        try {
            Files.writeString(
                    dir.resolve("test-jvm-cpu.txt"),
                    line,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException | RuntimeException e) {
            // only a record for people; the JVM is exiting either way
        }
    }
}
