package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/** The packaged gateway running as a separate OS process, so tests can kill it the way an operator's machine would. */
public final class ServerProcess implements AutoCloseable {

    /**
     * How long a start may take before it counts as failed: 180 s, or the system property {@code mp.test.ready-seconds}.
     * A start takes 10-20 s on a quiet 2-core machine and was seen past 60 s at load 40: the deadline is for a server
     * that never comes up, not a speed bound.
     */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(Long.getLong("mp.test.ready-seconds", 180));

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final String READY_PATH = "/mp/v0/discover";
    private static final String LIVE_PATH = "/q/health/live";
    /** Starts after a port chosen free was taken before the server bound it, each on new ports. */
    private static final int PORT_RETRIES = 2;
    /**
     * The JVM options a test server runs with unless its test sets others: C1 only and the serial collector, which
     * cost a short-lived server far less CPU than the optimising compiler; also what the bench's smoke test passes.
     */
    public static final List<String> JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /**
     * A build started in the background ({@code ./mvnw verify > log &}) inherits SIGINT ignored from the shell, and an
     * ignored signal stays ignored across exec: the server would never see the Ctrl-C a test sends. The server starts
     * with SIGINT at its default whoever started the build (coreutils {@code env --default-signal}, which execs, so the
     * pid is the server's).
     */
    private static final List<String> DEFAULT_SIGINT = defaultSigint();

    private static final HttpClient PROBE = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final Path jar;
    private final List<String> jvmOptions;
    private final List<String> launcher;
    private final Map<String, String> env;
    private final int port;
    private final int kafkaPort;
    private final int managementPort;
    private final Path logFile;
    private final String readyLine;
    private volatile Process process;
    /** Completes once the process has ended and what its end leaves behind (a class archive) is in place. */
    private volatile java.util.concurrent.CompletableFuture<Void> ended;
    /** The test class that started this server, for the CPU line each end prints. */
    private final String startedBy = startedBy();

    private volatile long launchedNanos;

    private ServerProcess(
            Path jar,
            List<String> jvmOptions,
            List<String> launcher,
            Map<String, String> env,
            int port,
            int kafkaPort,
            int managementPort,
            Path logFile,
            String readyLine) {
        this.managementPort = managementPort;
        this.readyLine = readyLine;
        this.jar = jar;
        this.jvmOptions = jvmOptions;
        this.launcher = launcher;
        this.env = env;
        this.port = port;
        this.kafkaPort = kafkaPort;
        this.logFile = logFile;
        JvmCpu.logAtExit();
        // A test JVM that exits must not leave servers holding ports and data directories.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            Process current = process;
                            if (current != null) {
                                account(current, "at the test JVM's exit");
                                current.destroyForcibly();
                            }
                        },
                        "server-process-" + port + "-kill"));
    }

    public static Builder builder() {
        return new Builder();
    }

    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** The management interface: health at {@code /q/health/*}, metrics at {@code /q/metrics}. */
    public URI managementUri() {
        return URI.create("http://127.0.0.1:" + managementPort);
    }

    /** The port of the server's own embedded broker. */
    public int kafkaPort() {
        if (kafkaPort == 0) {
            throw new IllegalStateException(
                    "this server uses the broker at " + env.get("KAFKA_BOOTSTRAP_SERVERS") + ", not its own");
        }
        return kafkaPort;
    }

    /** The server's data directory ({@code MP_DATA}). */
    public Path dataDir() {
        return Path.of(env.get("MP_DATA"));
    }

    /**
     * The client properties of the server's own embedded broker, as the server wrote them under its data directory at
     * its last start ({@code kafka-client.properties}: the cluster and the broker's SCRAM user).
     */
    public Map<String, String> kafkaClientProperties() {
        kafkaPort();
        return clientPropertiesIn(dataDir());
    }

    /**
     * The client properties an embedded broker's process wrote under {@code dataDir} ({@code kafka-client.properties}:
     * the cluster and the broker's user), as a map.
     */
    public static Map<String, String> clientPropertiesIn(Path dataDir) {
        java.util.Properties p = new java.util.Properties();
        try (var in = Files.newBufferedReader(dataDir.resolve("kafka-client.properties"), UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("no client properties of the embedded broker under " + dataDir, e);
        }
        Map<String, String> out = new java.util.TreeMap<>();
        p.stringPropertyNames().forEach(name -> out.put(name, p.getProperty(name)));
        return out;
    }

    /**
     * What a second server needs to share this one's embedded broker: {@code KAFKA_BOOTSTRAP_SERVERS} and the broker's
     * user as {@code MP_KAFKA_*} client properties.
     */
    public Map<String, String> sharedBrokerEnv() {
        return brokerEnv(kafkaClientProperties());
    }

    /**
     * The environment that gives a server the broker of these client properties: {@code KAFKA_BOOTSTRAP_SERVERS} and
     * the rest as {@code MP_KAFKA_*}.
     */
    public static Map<String, String> brokerEnv(Map<String, String> clientProperties) {
        Map<String, String> env = new LinkedHashMap<>();
        clientProperties.forEach((name, value) -> env.put(
                name.equals("bootstrap.servers")
                        ? "KAFKA_BOOTSTRAP_SERVERS"
                        : "MP_KAFKA_" + name.toUpperCase(java.util.Locale.ROOT).replace('.', '_'),
                value));
        return env;
    }

    /** The process id of the running server (of the launcher when one was given, which must exec the JVM). */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public synchronized void kill9() {
        account(process, "kill -9");
        destroyForcibly();
    }

    /** SIGTERM, then SIGKILL if the server is still there after 30 s; returns the exit code. */
    public synchronized int stop() {
        account(process, "stop");
        process.destroy();
        if (!waitFor(process, STOP_TIMEOUT)) {
            destroyForcibly();
        }
        awaitEnded();
        return process.exitValue();
    }

    /** Starts the server again with the same environment, ports and data, after {@link #stop} or {@link #kill9}. */
    public synchronized ServerProcess restart() {
        if (isAlive()) {
            throw new IllegalStateException("the server on port " + port + " is still running");
        }
        appendToLog("\n---- restarted by the test at " + Instant.now() + " ----\n");
        launch();
        return this;
    }

    public String log() {
        try {
            // Not Files.readString: a child killed mid-write can leave a broken UTF-8 sequence.
            return new String(Files.readAllBytes(logFile), UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends the process a signal by name ({@code TERM}, {@code INT}) and returns without waiting for it to act. */
    public synchronized void signal(String name) {
        try {
            new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid()))
                    .inheritIO()
                    .start()
                    .waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGINT, what Ctrl-C sends; returns the exit status once the process has ended. */
    public synchronized int interrupt() {
        Process current = process;
        account(current, "SIGINT");
        signal("INT");
        if (!waitFor(current, STOP_TIMEOUT)) {
            destroyForcibly();
            throw new AssertionError("the server did not stop within " + STOP_TIMEOUT + " of SIGINT");
        }
        awaitEnded();
        return current.exitValue();
    }

    @Override
    public synchronized void close() {
        if (isAlive()) {
            stop();
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(DEFAULT_SIGINT);
        ClassDataSharing.Plan sharing = ClassDataSharing.Plan.NONE;
        if (launcher != null) {
            command.addAll(launcher);
        } else {
            sharing = ClassDataSharing.plan(jar, jvmOptions);
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.addAll(sharing.options());
            command.addAll(List.of("-jar", jar.toString()));
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        // Only what the test chose: a KAFKA_BOOTSTRAP_SERVERS meant for the test JVM would silently redirect the
        // server.
        builder.environment()
                .keySet()
                .removeIf(name -> name.startsWith("MP_") || name.equals("KAFKA_BOOTSTRAP_SERVERS"));
        builder.environment().putAll(env);
        if (launcher != null) {
            builder.environment().put("MP_JAVA_OPTS", String.join(" ", jvmOptions));
        }
        try {
            process = builder.start();
        } catch (IOException e) {
            sharing.ended().run();
            throw new UncheckedIOException("cannot run " + command, e);
        }
        launchedNanos = System.nanoTime();
        ended = process.onExit().thenRun(sharing.ended());
        awaitReady();
        sharing.ready().accept(process.pid());
    }

    private void awaitReady() {
        try {
            await().atMost(READY_TIMEOUT)
                    .pollInterval(Duration.ofMillis(200))
                    .pollInSameThread()
                    .until(this::answers);
        } catch (ConditionTimeoutException e) {
            destroyForcibly();
            throw new IllegalStateException(
                    failure((readyLine != null
                                    ? "did not log '" + readyLine + "'"
                                    : "did not answer GET " + READY_PATH + " with 200")
                            + " within " + READY_TIMEOUT.toSeconds() + " s"),
                    e);
        } catch (ServerExited e) {
            throw new IllegalStateException(failure(e.getMessage()));
        }
    }

    private boolean answers() {
        if (!process.isAlive()) {
            throw new ServerExited("exited with code " + process.exitValue() + " before answering");
        }
        boolean up = readyLine != null
                ? log().contains(readyLine)
                : answers200(baseUri().resolve(READY_PATH));
        // The management interface binds its port after the application answers: a port taken in between by another
        // process ends the server, which must not count as started.
        return up && answers200(managementUri().resolve(LIVE_PATH));
    }

    private static boolean answers200(URI uri) {
        HttpRequest request =
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build();
        try {
            return PROBE.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the server", e);
        }
    }

    /** The server ended because a port it was given was taken by another process before it bound it. */
    private boolean lostAPort() {
        return !process.isAlive() && log().contains("already in use");
    }

    private String failure(String what) {
        List<String> lines = log().lines().toList();
        String tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        return "the server (" + jar + ", port " + port + ") " + what + "\n---- end of " + logFile + " ----\n" + tail;
    }

    /**
     * Prints what the server has cost so far, one line per end ({@code ServerProcess: CrashRecoveryIT :8130 used 9.1
     * CPU-s in 41 s, kill -9}), so a slow suite's output says which tests spend the machine. Read only by people.
     */
    private void account(Process current, String how) {
        if (current == null || !current.isAlive()) {
            return;
        }
        current.info()
                .totalCpuDuration()
                .ifPresent(cpu -> System.out.printf(
                        "ServerProcess: %s :%d used %.1f CPU-s in %d s, %s%n",
                        startedBy,
                        port,
                        cpu.toMillis() / 1000.0,
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - launchedNanos),
                        how));
    }

    /** The outermost test class on the stack (the first frame of a class in a test package named *IT or *Test). */
    private static String startedBy() {
        return StackWalker.getInstance()
                .walk(frames -> frames.map(StackWalker.StackFrame::getClassName)
                        .filter(c -> !c.startsWith("io.monitorbackbone.testsupport.")
                                && (c.endsWith("IT") || c.endsWith("Test") || c.contains("IT$") || c.contains("Test$")))
                        .reduce((first, second) -> second)
                        .map(c -> c.substring(c.lastIndexOf('.') + 1))
                        .orElse("?"));
    }

    private synchronized void destroyForcibly() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(process, STOP_TIMEOUT);
            awaitEnded();
        }
    }

    private void awaitEnded() {
        java.util.concurrent.CompletableFuture<Void> current = ended;
        if (current != null && !process.isAlive()) {
            try {
                current.get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // What the end leaves behind is an optimization; the process itself has ended.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void appendToLog(String text) {
        try {
            Files.writeString(logFile, text, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> defaultSigint() {
        List<String> prefix = List.of("env", "--default-signal=INT");
        try {
            Process probe = new ProcessBuilder("env", "--default-signal=INT", "true")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0 ? prefix : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the server to exit", e);
        }
    }

    private static final class ServerExited extends RuntimeException {
        ServerExited(String message) {
            super(message, null, false, false);
        }
    }

    public static final class Builder {

        private Path jar;
        private List<String> jvmOptions = JVM_OPTIONS;
        private List<String> launcher;
        private final Map<String, String> env = new LinkedHashMap<>();
        private int port;
        private int kafkaPort;
        private int managementPort;
        private String readyLine;

        private Builder() {}

        /**
         * Ready once the log holds this text, instead of once {@code GET /mp/v0/discover} answers: for a process that
         * serves no HTTP API (MP_ROLES without gateway). A restart's log is appended, so the text must be new to it.
         */
        public Builder readyWhenLogged(String text) {
            this.readyLine = text;
            return this;
        }

        /** Defaults to the system property {@code mp.app.jar}. */
        public Builder jar(Path jar) {
            this.jar = jar;
            return this;
        }

        /**
         * JVM options instead of the tests' small, fast-starting defaults ({@code -Xmx512m}, serial GC, C1 only): a
         * benchmark wants the JVM an operator runs, which is no options at all.
         */
        public Builder jvmOptions(List<String> options) {
            this.jvmOptions = List.copyOf(options);
            return this;
        }

        /**
         * Runs this command (e.g. {@code ./mp serve --port N}) instead of {@code java -jar}; it must exec the server so
         * that signals reach it. The environment is the same.
         */
        public Builder launcher(List<String> command) {
            this.launcher = List.copyOf(command);
            return this;
        }

        public Builder env(String name, String value) {
            env.put(name, value);
            return this;
        }

        public Builder env(Map<String, String> variables) {
            env.putAll(variables);
            return this;
        }

        /** Passed as {@code MP_PORT}; defaults to a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Passed as {@code MP_KAFKA_PORT}; defaults to a free port unless {@code KAFKA_BOOTSTRAP_SERVERS} is set. */
        public Builder kafkaPort(int kafkaPort) {
            this.kafkaPort = kafkaPort;
            return this;
        }

        /** Passed as {@code MP_MANAGEMENT_PORT}; defaults to a free port. */
        public Builder managementPort(int managementPort) {
            this.managementPort = managementPort;
            return this;
        }

        /**
         * Starts the server and waits until it answers. Ports left to this builder are chosen free just before the
         * start, so another process may take one first (tests run side by side): a server that ends for that reason is
         * started again on new ports, at most {@link #PORT_RETRIES} times.
         */
        public ServerProcess start() {
            boolean portsChosenHere =
                    port == 0 && managementPort == 0 && (kafkaPort == 0 || env.containsKey("KAFKA_BOOTSTRAP_SERVERS"));
            for (int attempt = 0; ; attempt++) {
                ServerProcess server = create();
                try {
                    server.launch();
                    return server;
                } catch (IllegalStateException e) {
                    if (!portsChosenHere || attempt >= PORT_RETRIES || !server.lostAPort()) {
                        throw e;
                    }
                    System.err.println("ServerProcess: a port of :" + server.port
                            + " was taken before the server bound it (" + server.logFile + "); starting again");
                }
            }
        }

        private ServerProcess create() {
            Path app = jar != null ? jar : defaultJar();
            if (launcher == null && !Files.isRegularFile(app)) {
                throw new IllegalStateException(
                        "no application jar at " + app.toAbsolutePath() + ": package the gateway first");
            }
            int httpPort = port != 0 ? port : FreePorts.next();
            int brokerPort =
                    kafkaPort != 0 || env.containsKey("KAFKA_BOOTSTRAP_SERVERS") ? kafkaPort : FreePorts.next();
            int management = managementPort != 0 ? managementPort : FreePorts.next();
            Map<String, String> all = new LinkedHashMap<>(env);
            all.put("MP_PORT", String.valueOf(httpPort));
            all.put("MP_MANAGEMENT_PORT", String.valueOf(management));
            // Never the default ./data, which is the source tree of whichever module runs the test.
            all.putIfAbsent(
                    "MP_DATA",
                    BuildDir.resolve("server-data")
                            .resolve("server-" + httpPort)
                            .toString());
            if (brokerPort != 0) {
                all.put("MP_KAFKA_PORT", String.valueOf(brokerPort));
            }
            Path logFile;
            try {
                logFile = Files.createTempFile(BuildDir.resolve("server-logs"), "server-" + httpPort + "-", ".log");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new ServerProcess(
                    app, jvmOptions, launcher, Map.copyOf(all), httpPort, brokerPort, management, logFile, readyLine);
        }

        private static Path defaultJar() {
            String property = System.getProperty("mp.app.jar");
            if (property == null) {
                throw new IllegalStateException("set the system property mp.app.jar or call jar(Path)");
            }
            return Path.of(property);
        }
    }
}
