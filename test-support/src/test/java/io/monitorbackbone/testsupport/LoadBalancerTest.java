package io.monitorbackbone.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The HAProxy configuration the tests run is the one docs/operations.md shows; a missing haproxy says what to do. */
class LoadBalancerTest {

    @Test
    void theOperationsGuideShowsTheConfigurationTheTestsRun() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "operations.md"));
        String config = LoadBalancer.config(
                8080,
                0,
                List.of(
                        new LoadBalancer.Backend("gw1", 8130, 9131),
                        new LoadBalancer.Backend("gw2", 8140, 9141),
                        new LoadBalancer.Backend("gw3", 8150, 9151)),
                Duration.ofMillis(250));
        assertThat(docs).contains("```\n" + config + "```\n");
    }

    @Test
    void withoutHaproxyTheTestFailsAndSaysHowToInstallIt() {
        assertThatThrownBy(() -> LoadBalancer.executable("", List.of(Path.of("/nonexistent/haproxy"))))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("apt-get install -y haproxy");
    }
}
