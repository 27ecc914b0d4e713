package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The packaged {@code mp} jar run as its own OS process, as an agent's Monitor tool runs it: stdout is read line by
 * line as it comes, and every wait for a line or an exit fails as an assertion when its time is up.
 */
final class CliProcess implements AutoCloseable {

    private static final Path JAR = Path.of(System.getProperty("mp.cli.jar", "target/mp.jar"));
    private static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m");
    private static final String END = "\u0000end of stdout";

    private final List<String> command;
    private final Process process;
    private final BlockingQueue<String> unread = new LinkedBlockingQueue<>();
    private final List<String> stdout = new CopyOnWriteArrayList<>();
    private final StringBuffer stderr = new StringBuffer();
    private final Thread stderrReader;

    private CliProcess(List<String> command, Map<String, String> env) {
        this(command, env, false);
    }

    private CliProcess(List<String> command, Map<String, String> env, boolean keepStdin) {
        this.command = command;
        ProcessBuilder builder = new ProcessBuilder(command);
        // Only what the test chose: an MP_BASE or MP_TOKEN of the machine must not leak into a test.
        builder.environment().keySet().removeIf(name -> name.startsWith("MP_"));
        builder.environment().putAll(env);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        }
        if (!keepStdin) {
            // Nothing is typed: a command that reads its body from stdin sees the end at once.
            closeStdin();
        }
        daemon("stdout", () -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    stdout.add(line);
                    unread.add(line);
                }
            } catch (IOException e) {
                // the process was killed: what it printed is in stdout
            } finally {
                unread.add(END);
            }
        });
        stderrReader = daemon("stderr", () -> {
            try (InputStream err = process.getErrorStream()) {
                stderr.append(new String(err.readAllBytes(), UTF_8));
            } catch (IOException e) {
                // as above
            }
        });
    }

    /** {@code mp <args>} against {@code base}, given as MP_BASE. */
    static CliProcess start(URI base, String... args) {
        return start(Map.of("MP_BASE", base.toString()), args);
    }

    static CliProcess start(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(javaCommand());
        command.addAll(List.of(args));
        return new CliProcess(command, env);
    }

    /** {@code mp <args>} with stdin open: the test writes lines to it with {@link #send} (e.g. {@code mp mcp}). */
    static CliProcess startInteractive(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(javaCommand());
        command.addAll(List.of(args));
        return new CliProcess(command, env, true);
    }

    /** One line on the process's stdin, flushed. */
    void send(String line) {
        try {
            process.getOutputStream().write((line + "\n").getBytes(UTF_8));
            process.getOutputStream().flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to the stdin of " + command, e);
        }
    }

    /** Ends the process's stdin, as a host does to stop a stdio server. */
    void closeStdin() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code java ... -jar mp.jar}, what {@code mp} stands for in a command line. */
    static List<String> javaCommand() {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException("no cli jar at " + JAR.toAbsolutePath() + ": package the cli module first");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-jar", JAR.toAbsolutePath().toString()));
        return command;
    }

    /** Any command line, e.g. the repository's {@code ./mp} script; stdout and stderr are read the same way. */
    static CliProcess startCommand(List<String> command, Map<String, String> env) {
        return new CliProcess(List.copyOf(command), env);
    }

    /** Runs {@code mp <args>} to its end. */
    static Finished run(URI base, String... args) {
        try (CliProcess p = start(base, args)) {
            return p.finish();
        }
    }

    record Finished(int exit, List<String> stdout, String stderr) {
        String out() {
            return String.join("\n", stdout);
        }
    }

    /** The next line on stdout, whatever it is. */
    String nextLine(Duration timeout) {
        return awaitLine("any line", line -> true, timeout);
    }

    /** Skips lines until one matches; fails if the process ends or the time is up first. */
    String awaitLine(String what, Predicate<String> matching, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line;
            try {
                line = left <= 0 ? null : unread.poll(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what);
            }
            if (line == null) {
                throw new AssertionError("no " + what + " within " + timeout.toSeconds() + " s" + transcript());
            }
            if (line == END) {
                unread.add(END);
                throw new AssertionError("stdout ended before " + what + exitNote() + transcript());
            }
            if (matching.test(line)) {
                return line;
            }
        }
    }

    /** Waits for the process to end by itself and returns its exit status. */
    int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("still running after " + timeout.toSeconds() + " s" + transcript());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the exit");
        }
        return process.exitValue();
    }

    /** Waits for the exit and for everything the process printed. */
    Finished finish() {
        return finish(Duration.ofSeconds(60));
    }

    Finished finish(Duration timeout) {
        int exit = awaitExit(timeout);
        try {
            String line;
            do {
                line = unread.poll(10, TimeUnit.SECONDS);
            } while (line != null && line != END);
            unread.add(END);
            stderrReader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while reading what the process printed");
        }
        return new Finished(exit, stdout(), stderr());
    }

    List<String> stdout() {
        return List.copyOf(stdout);
    }

    String stderr() {
        return stderr.toString();
    }

    @Override
    public void close() {
        // A shell's children first: killing only the shell would leave them running.
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String exitNote() {
        return process.isAlive() ? "" : " (exit status " + process.exitValue() + ")";
    }

    private String transcript() {
        return "\n---- " + String.join(" ", command) + " ----\nstdout:\n  " + String.join("\n  ", stdout)
                + "\nstderr:\n  " + stderr.toString().strip().replace("\n", "\n  ");
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, "mp-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
