package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * HAProxy in front of any number of gateways, run by a test as a child process ({@code haproxy -db -f <config>}): HTTP
 * round-robin, no stickiness, each gateway in rotation only while its management port answers
 * {@code GET /q/health/ready} with 200 (checked every {@link Builder#checkInterval}), and a stats page this class reads
 * to say which gateways HAProxy sends requests to. What HAProxy may retry is written into the config by
 * {@link #config(int, int, List, Duration)}, the same text docs/operations.md shows: only a request whose connection
 * to a gateway failed, which never reached it, is sent again (to another gateway); nothing that was sent is retried,
 * since a publish is not idempotent.
 */
public final class LoadBalancer implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
    private static final List<Path> KNOWN_PLACES = List.of(Path.of("/usr/sbin/haproxy"), Path.of("/usr/bin/haproxy"));
    static final String BACKEND = "gateways";

    private static final HttpClient STATS = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    /** One gateway behind the load balancer: its name in HAProxy, its API port and its management port. */
    public record Backend(String name, int port, int managementPort) {
        public Backend {
            if (!name.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException("a backend name HAProxy accepts: " + name);
            }
        }

        public static Backend of(String name, ServerProcess server) {
            return new Backend(name, server.port(), server.managementUri().getPort());
        }
    }

    private final Process process;
    private final int port;
    private final int statsPort;
    private final Path dir;
    private final String config;

    private LoadBalancer(Process process, int port, int statsPort, Path dir, String config) {
        this.process = process;
        this.port = port;
        this.statsPort = statsPort;
        this.dir = dir;
        this.config = config;
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "load-balancer-" + port + "-kill"));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Where clients send requests. */
    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** The configuration HAProxy runs with. */
    public String config() {
        return config;
    }

    /** What HAProxy printed (its alerts and warnings, one line per server going UP or DOWN). */
    public String log() {
        try {
            return new String(Files.readAllBytes(dir.resolve("haproxy.log")), UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Each gateway's row of HAProxy's stats: {@code status} ({@code UP}, {@code DOWN}, {@code UP 1/2} while rising,
     * ...), and the counters, among them {@code econ} (connection errors), {@code eresp} (response errors),
     * {@code wretr} (retries) and {@code wredis} (redispatches to another gateway).
     */
    public Map<String, Map<String, String>> stats() {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statsPort + "/stats;csv"))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
        String csv;
        try {
            HttpResponse<String> response = STATS.send(request, HttpResponse.BodyHandlers.ofString(UTF_8));
            if (response.statusCode() != 200) {
                throw new IllegalStateException("HAProxy's stats answered " + response.statusCode());
            }
            csv = response.body();
        } catch (IOException e) {
            throw new UncheckedIOException("HAProxy's stats did not answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        List<String> lines = csv.lines().toList();
        List<String> columns =
                Arrays.asList(lines.get(0).replaceFirst("^# ", "").split(",", -1));
        Map<String, Map<String, String>> rows = new LinkedHashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            if (cells.length < 2 || !cells[0].equals(BACKEND) || cells[1].equals("BACKEND")) {
                continue;
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < Math.min(cells.length, columns.size()); i++) {
                row.put(columns.get(i), cells[i]);
            }
            rows.put(cells[1], row);
        }
        return rows;
    }

    /** HAProxy's status of one gateway: {@code UP}, {@code DOWN}, or a transition such as {@code UP 1/2}. */
    public String status(String backend) {
        Map<String, String> row = stats().get(backend);
        if (row == null) {
            throw new IllegalArgumentException("no gateway " + backend + " behind this load balancer");
        }
        return row.get("status");
    }

    /** Waits (generously) until HAProxy sends requests to this gateway: its readiness has passed HAProxy's checks. */
    public void awaitUp(String backend, Duration atMost) {
        awaitStatus(backend, "UP", atMost);
    }

    /** Waits until HAProxy has taken this gateway out of rotation. */
    public void awaitDown(String backend, Duration atMost) {
        awaitStatus(backend, "DOWN", atMost);
    }

    private void awaitStatus(String backend, String status, Duration atMost) {
        try {
            await().atMost(atMost)
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> status.equals(status(backend)));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "HAProxy did not see " + backend + " " + status + " within " + atMost + "; its stats: "
                            + safeStats() + "\n---- HAProxy's log ----\n" + log(),
                    e);
        }
    }

    private String safeStats() {
        try {
            return stats().toString();
        } catch (RuntimeException e) {
            return "(unavailable: " + e + ")";
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * The HAProxy configuration for these gateways: the text the tests run and docs/operations.md shows (there with
     * fixed ports). Connections to the gateways carry one request each ({@code option http-server-close}): no idle
     * connection is kept that a stopping gateway could close just as a request is put on it. A request whose
     * connection to a gateway failed (refused, or not established within {@code timeout connect}) never reached it
     * and is sent again, to another gateway ({@code retry-on conn-failure}, {@code option redispatch 1}); nothing else
     * is retried.
     */
    public static String config(int port, int statsPort, List<Backend> backends, Duration checkInterval) {
        return config(port, statsPort, backends, checkInterval, null);
    }

    /**
     * {@link #config(int, int, List, Duration)}, and when {@code servedByHeader} is not null every answer of a gateway
     * carries that response header naming the gateway that gave it (HAProxy's {@code srv_name}). An answer HAProxy
     * makes itself (a 502 or 503 for a gateway it lost mid-request) has no such header.
     */
    public static String config(
            int port, int statsPort, List<Backend> backends, Duration checkInterval, String servedByHeader) {
        long inter = Math.max(1, checkInterval.toMillis());
        StringBuilder cfg = new StringBuilder();
        cfg.append("global\n")
                .append("    maxconn 4096\n")
                .append("\n")
                .append("defaults\n")
                .append("    mode http\n")
                .append("    timeout connect 5s\n")
                // Longer than a long-poll's longest wait (discover's max_wait_seconds) and the SSE heartbeat.
                .append("    timeout client 90s\n")
                .append("    timeout server 90s\n")
                .append("    timeout check 3s\n")
                .append("    option http-server-close\n")
                .append("    retries 3\n")
                .append("    retry-on conn-failure\n")
                .append("    option redispatch 1\n")
                .append("\n")
                .append("frontend api\n")
                .append("    bind 127.0.0.1:")
                .append(port)
                .append("\n")
                .append("    default_backend ")
                .append(BACKEND)
                .append("\n")
                .append("\n")
                .append("backend ")
                .append(BACKEND)
                .append("\n")
                .append("    balance roundrobin\n")
                .append("    option httpchk GET /q/health/ready\n")
                .append("    http-check expect status 200\n")
                .append("    default-server inter ")
                .append(inter)
                .append("ms fall 2 rise 2\n");
        if (servedByHeader != null) {
            cfg.append("    http-response set-header ").append(servedByHeader).append(" %[srv_name]\n");
        }
        for (Backend b : backends) {
            cfg.append("    server ")
                    .append(b.name())
                    .append(" 127.0.0.1:")
                    .append(b.port())
                    .append(" check port ")
                    .append(b.managementPort())
                    .append("\n");
        }
        if (statsPort > 0) {
            cfg.append("\n")
                    .append("listen stats\n")
                    .append("    bind 127.0.0.1:")
                    .append(statsPort)
                    .append("\n")
                    .append("    stats enable\n")
                    .append("    stats uri /stats\n");
        }
        return cfg.toString();
    }

    /** The haproxy executable: on the PATH or where Debian puts it; an AssertionError saying how to install it. */
    static Path executable() {
        return executable(System.getenv().getOrDefault("PATH", ""), KNOWN_PLACES);
    }

    static Path executable(String path, List<Path> knownPlaces) {
        List<Path> candidates = new ArrayList<>();
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (!dir.isBlank()) {
                candidates.add(Path.of(dir, "haproxy"));
            }
        }
        candidates.addAll(knownPlaces);
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError("this test runs HAProxy in front of the gateways, and no haproxy executable was found"
                + " on the PATH or in /usr/sbin: install it (Debian, Ubuntu: `sudo apt-get install -y haproxy`;"
                + " .ci/run installs it when it runs as root)");
    }

    public static final class Builder {
        private final List<Backend> backends = new ArrayList<>();
        private Duration checkInterval = Duration.ofMillis(250);
        private int port;
        private String servedByHeader;

        private Builder() {}

        public Builder backend(Backend backend) {
            backends.add(backend);
            return this;
        }

        public Builder backend(String name, ServerProcess server) {
            return backend(Backend.of(name, server));
        }

        /** How often HAProxy asks each gateway's readiness (default 250 ms); two answers in a row change its state. */
        public Builder checkInterval(Duration interval) {
            this.checkInterval = interval;
            return this;
        }

        /**
         * Names the gateway that answered in this response header of every answer a gateway gives (none by default):
         * a test can tell where round-robin sent each request, and an answer HAProxy made itself by its absence.
         */
        public Builder servedByHeader(String name) {
            if (!name.matches("[A-Za-z0-9-]+")) {
                throw new IllegalArgumentException("a header name: " + name);
            }
            this.servedByHeader = name;
            return this;
        }

        /** The port clients connect to; defaults to a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Writes the config to a directory of its own, starts HAProxy, and returns once it accepts connections. */
        public LoadBalancer start() {
            if (backends.isEmpty()) {
                throw new IllegalStateException("a load balancer needs at least one gateway");
            }
            Path haproxy = executable();
            int front = port != 0 ? port : FreePorts.next();
            int stats = FreePorts.next();
            String config = config(front, stats, backends, checkInterval, servedByHeader);
            Path dir;
            try {
                dir = Files.createTempDirectory(BuildDir.resolve("load-balancers"), "haproxy-" + front + "-");
                Files.writeString(dir.resolve("haproxy.cfg"), config, UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Process process;
            try {
                // -db: stay in the foreground, so the test owns the process and its exit.
                process = new ProcessBuilder(
                                haproxy.toString(),
                                "-db",
                                "-f",
                                dir.resolve("haproxy.cfg").toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("haproxy.log").toFile())
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run " + haproxy, e);
            }
            LoadBalancer lb = new LoadBalancer(process, front, stats, dir, config);
            try {
                await().atMost(START_TIMEOUT)
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            if (!process.isAlive()) {
                                throw new IllegalStateException("haproxy exited with " + process.exitValue()
                                        + " at start:\n" + lb.log() + "\n---- its config ----\n" + config);
                            }
                            return accepts(front) && accepts(stats);
                        });
            } catch (ConditionTimeoutException e) {
                lb.close();
                throw new IllegalStateException(
                        "haproxy did not listen on " + front + " within " + START_TIMEOUT + ":\n" + lb.log());
            }
            return lb;
        }

        private static boolean accepts(int port) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return true;
            } catch (IOException e) {
                return false;
            }
        }
    }
}
