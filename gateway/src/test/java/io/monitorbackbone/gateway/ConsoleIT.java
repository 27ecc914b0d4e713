package io.monitorbackbone.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The web console at {@code /}: its files served with their policy beside an unchanged API, its calls from its own
 * origin accepted while foreign and rebinding pages stay refused, and the console itself driven end to end in headless
 * Chromium ({@code src/test/console/console-e2e.mjs}, Playwright over Debian's {@code chromium}): create, publish, the
 * row live, ack, lag 0; a private monitor invisible without its token and visible with it; refusals shown with their
 * code and message. Screenshots go to {@code target/console-screenshots}. Without chromium or node the browser test
 * is skipped, saying so, except under {@code CI=true}, where it fails.
 */
class ConsoleIT {
    private static final Path SCRIPTS = Path.of(System.getProperty("mp.repo.root", ".."), "gateway/src/test/console");
    private static final List<String> STEPS = List.of(
            "the console loads at / and lists monitors",
            "create a public monitor",
            "subscribe and follow the live feed",
            "publish: the row appears live",
            "ack to the next seq: lag 0",
            "a refused publish shows its code and message",
            "pause and resume are recorded",
            "a duplicate create shows DUPLICATE",
            "a private monitor is invisible without its token",
            "and visible with it",
            "a silent source is marked stale, with the server\u2019s reason",
            "no token in any URL the browser asked for, no script error");

    private final Http http = SharedServer.http();

    @Test
    void theConsoleIsServedAtTheRootWithItsPolicyAndTheApiIsUnchanged() {
        Http.Response page = http.request("GET", "/", null, Map.of());
        Http.Response script = http.request("GET", "/console/app.js", null, Map.of());
        Http.Response missing = http.request("GET", "/console/missing.js", null, Map.of());
        Http.Response outside = http.request("GET", "/index.html", null, Map.of());
        Http.Response management = http.request("GET", "/q/health", null, Map.of());
        Http.Response posted = http.request("POST", "/", "{}", Map.of());

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(page.body()).contains("/console/app.js");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElse(""))
                .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'");
        assertThat(page.headers().allValues("Cache-Control")).containsExactly("no-cache");
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.headers().firstValue("Content-Type").orElse("")).contains("javascript");
        assertThat(script.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        for (Http.Response refused : List.of(missing, outside, management, posted)) {
            Walk.assertRefused(refused, 404, "NOT_FOUND");
        }
        assertThat(missing.headers().allValues("Cache-Control")).containsExactly("no-store");
        assertThat(http.get("/mp/v0/discover", null)
                        .json()
                        .at("/capabilities/extensions/io.monitorbackbone~1web-console/path")
                        .asText())
                .isEqualTo("/");
    }

    @Test
    void aPageOfThisServerMayCallTheApiAndForeignOrRebindingPagesStayRefused() throws IOException {
        String self = "http://127.0.0.1:" + http.base().getPort();
        Http.Response sameOrigin = http.post(
                "/mp/v0/monitors",
                "{\"id\":\"" + SharedServer.uniqueId("console") + "\",\"visibility\":\"private\"}",
                null,
                Map.of("Origin", self));
        Http.Response otherPort = http.request(
                "GET",
                "/mp/v0/discover",
                null,
                Map.of("Origin", "http://127.0.0.1:" + (http.base().getPort() + 1)));
        Http.Response otherName = http.request(
                "GET",
                "/mp/v0/discover",
                null,
                Map.of("Origin", "http://localhost:" + http.base().getPort()));

        assertThat(sameOrigin.status()).as(sameOrigin.body()).isEqualTo(201);
        Walk.assertRefused(otherPort, 403, "ORIGIN_REFUSED");
        Walk.assertRefused(otherName, 403, "ORIGIN_REFUSED");
        // A rebinding page: its own name resolves to this server, so Origin and Host agree, on a name it does not
        // answer to.
        String rebound = "evil.example:" + http.base().getPort();
        assertThat(rawStatusLine("GET", rebound, "http://" + rebound)).contains(" 403 ");
    }

    @Test
    void theConsoleWorksEndToEndInHeadlessChromium() throws Exception {
        String missing = missingBrowserTools();
        if (missing != null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError(missing + "; CI must run the console's browser test (.ci/run installs them"
                        + " as root: apt-get install -y chromium nodejs npm)");
            }
            Assumptions.abort("skipping the console's browser test: " + missing
                    + " (Debian, Ubuntu: sudo apt-get install -y chromium nodejs npm)");
        }
        if (!Files.isDirectory(SCRIPTS.resolve("node_modules/playwright-core"))) {
            Run install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), 300);
            assertThat(install.exit())
                    .as("npm ci in " + SCRIPTS + ":\n" + install.output())
                    .isZero();
        }
        Path shots = Path.of("target", "console-screenshots").toAbsolutePath();
        Run e2e = run(List.of("node", "console-e2e.mjs", http.base().toString(), shots.toString()), 240);
        Files.writeString(shots.resolve("console-e2e.log"), e2e.output(), UTF_8);

        assertThat(e2e.exit())
                .as("console-e2e.mjs (screenshots in " + shots + "):\n" + e2e.output())
                .isZero();
        for (String step : STEPS) {
            assertThat(e2e.output()).as(e2e.output()).contains("STEP ok " + step + "\n");
        }
        assertThat(shots.resolve("monitor.png")).exists();
    }

    private static String missingBrowserTools() {
        Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
        if (!Files.isExecutable(chromium)) {
            return "no chromium at " + chromium;
        }
        for (String tool : List.of("node", "npm")) {
            boolean found = false;
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                found |= !dir.isEmpty() && Files.isExecutable(Path.of(dir, tool));
            }
            if (!found) {
                return "no " + tool + " on the PATH";
            }
        }
        return null;
    }

    private record Run(int exit, String output) {}

    /** A process in the scripts' directory, its output read to the end; killed (it and its children) past the bound. */
    private static Run run(List<String> command, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .directory(SCRIPTS.toFile())
                .redirectErrorStream(true)
                .start();
        StringBuilder out = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (out) {
                        out.append(line).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        reader.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            reader.join(10_000);
            synchronized (out) {
                return new Run(
                        -1,
                        out + "\n(" + String.join(" ", command) + " still running after " + seconds + " s: killed)");
            }
        }
        reader.join(10_000);
        synchronized (out) {
            return new Run(p.exitValue(), out.toString());
        }
    }

    /** One request written by hand, for a Host header the JDK's client will not send; the answer's status line. */
    private String rawStatusLine(String method, String host, String origin) throws IOException {
        try (Socket s = new Socket(http.base().getHost(), http.base().getPort())) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write((method + " /mp/v0/discover HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + origin
                            + "\r\nConnection: close\r\n\r\n")
                    .getBytes(UTF_8));
            out.flush();
            return new BufferedReader(new InputStreamReader(s.getInputStream(), UTF_8)).readLine();
        }
    }
}
