package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.RuleBreakingProxy;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The suite can fail: the real gateway seen through a relay that breaks one rule (it forwards requests without their
 * {@code Origin}, so a web page's request is served as by a server with no Origin guard) fails the check for it.
 */
class BrokenRuleIT {
    private static ServerProcess server;
    private static RuleBreakingProxy proxy;

    @BeforeAll
    static void start() {
        server = ServerProcess.builder()
                .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                .start();
        proxy = RuleBreakingProxy.withoutRequestHeader(server.baseUri(), "Origin");
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aServerThatLetsAForeignOriginThroughFailsC30AndTheRunExitsOne() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int exit = Conformance.run(
                new String[] {"--base", proxy.baseUri().toString(), "--only", "C01,C23,C30"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                Map.of());

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(exit).as(String.join("\n", lines)).isEqualTo(1);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).startsWith("C01  PASS ");
        assertThat(lines.get(1)).startsWith("C23  PASS ");
        assertThat(lines.get(2))
                .startsWith("C30  FAIL ")
                .contains("GET /mp/v0/discover → 200, expected 403 ORIGIN_REFUSED");
        assertThat(lines.get(3)).contains("3 checks", "2 passed, 1 failed, 0 skipped");
        assertThat(lines.get(4)).startsWith("cleanup: retired the ").doesNotContain("could not retire");
    }
}
