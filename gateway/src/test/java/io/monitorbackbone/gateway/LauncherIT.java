package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.FreePorts;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's run command, `./mp serve`, as a user types it. */
class LauncherIT {
    private static final Path MP = Path.of(System.getProperty("mp.repo.root"), "mp");

    @Test
    void mpServeRunsWithItsOwnBrokerAndCtrlCStopsItCleanly(@TempDir Path data) {
        int port = FreePorts.next();
        int kafkaPort = FreePorts.next();
        List<String> command = List.of(
                MP.toString(),
                "serve",
                "--port",
                String.valueOf(port),
                "--data",
                data.toString(),
                "--kafka-port",
                String.valueOf(kafkaPort));
        try (ServerProcess server = ServerProcess.builder()
                .launcher(command)
                .port(port)
                .kafkaPort(kafkaPort)
                .start()) {
            Walk walk = new Walk(new Http(server.baseUri()));
            Walk.Monitor m = walk.createMonitor("ci");
            walk.publish(m, "build-412");

            int exit = server.interrupt();

            assertThat(exit).as("exit status after Ctrl-C").isIn(0, 130);
            assertThat(server.log())
                    .contains("http://127.0.0.1:" + port + "/mp/v0")
                    .contains(data.toString())
                    .contains("127.0.0.1:" + kafkaPort)
                    .contains("monitor-backbone stopped");
            assertThat(Files.isDirectory(data.resolve("kafka").resolve("mp.obs.ci-0")))
                    .isTrue();

            server.restart();
            assertThat(new Http(server.baseUri())
                            .get("/mp/v0/monitors/ci", null)
                            .json()
                            .get("head")
                            .asLong())
                    .isEqualTo(2);
        }
    }

    @Test
    void mpRefusesUnknownCommandsAndOptions() throws Exception {
        Process unknown = new ProcessBuilder(MP.toString(), "frobnicate")
                .redirectErrorStream(true)
                .start();
        Process badOption = new ProcessBuilder(MP.toString(), "serve", "--nope")
                .redirectErrorStream(true)
                .start();

        assertThat(unknown.waitFor()).isEqualTo(2);
        assertThat(new String(unknown.getInputStream().readAllBytes())).contains("unknown command frobnicate", "serve");
        assertThat(badOption.waitFor()).isEqualTo(2);
        assertThat(new String(badOption.getInputStream().readAllBytes())).contains("unknown option --nope");
    }
}
