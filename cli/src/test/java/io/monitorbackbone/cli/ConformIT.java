package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.FreePorts;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's two commands meet: `./mp conform` against `./mp serve`, every check passing, C17 included. */
class ConformIT {
    private static final Path MP = Path.of(System.getProperty("mp.repo.root"), "mp");

    @Test
    void mpConformPassesEveryCheckAgainstMpServe(@TempDir Path data) {
        int port = FreePorts.next();
        int kafkaPort = FreePorts.next();
        String admin = "admin-" + Long.toHexString(System.nanoTime());
        List<String> serve = List.of(
                MP.toString(),
                "serve",
                "--port",
                String.valueOf(port),
                "--data",
                data.toString(),
                "--kafka-port",
                String.valueOf(kafkaPort));
        try (ServerProcess server = ServerProcess.builder()
                .launcher(serve)
                .port(port)
                .kafkaPort(kafkaPort)
                .env("MP_ADMIN_TOKEN", admin)
                .start()) {
            CliProcess.Finished run;
            try (CliProcess conform = CliProcess.startCommand(
                    List.of(MP.toString(), "conform", "--base", server.baseUri().toString(), "--admin-token", admin),
                    Map.of())) {
                run = conform.finish(Duration.ofMinutes(5));
            }

            // The protocol's 34 checks and our stricter C17+.
            List<String> checks = run.stdout().stream()
                    .filter(l -> l.matches("^C\\d+[b+]?\\s+(PASS|FAIL|SKIP)\\s.*"))
                    .toList();
            assertThat(checks)
                    .as(run.out() + "\n" + run.stderr())
                    .hasSize(35)
                    .allMatch(l -> l.matches("^C\\d+[b+]?\\s+PASS\\s.*"));
            assertThat(run.stdout())
                    .anyMatch(l -> l.startsWith("cleanup: retired the ") && !l.contains("could not retire"));
            assertThat(run.exit()).as(run.out()).isZero();
        }
    }

    @Test
    void aCheckThatFailsMakesMpConformExitOne() {
        // Nothing listens there: every check fails, and the exit status says so.
        int closed = FreePorts.next();
        CliProcess.Finished run;
        try (CliProcess conform = CliProcess.startCommand(
                List.of(MP.toString(), "conform", "--base", "http://127.0.0.1:" + closed, "--only", "C01"), Map.of())) {
            run = conform.finish(Duration.ofMinutes(2));
        }

        assertThat(run.stdout()).anyMatch(l -> l.matches("^C01\\s+FAIL\\s.*"));
        assertThat(run.exit()).isEqualTo(1);
    }
}
