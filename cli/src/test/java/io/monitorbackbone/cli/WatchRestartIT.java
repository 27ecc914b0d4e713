package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The server as {@code ./mp serve} runs it, with its own embedded broker, killed with SIGKILL under a running watch
 * and started again on the same data directory and Kafka port.
 */
class WatchRestartIT {
    /** A restart brings up a broker and a gateway; the watch then retries at most 10 s apart. */
    private static final Duration BACK = Duration.ofSeconds(120);

    @Test
    void aServerKilledMidWatchIsOneDownLineThenUpAndWhatCameMeanwhileIsDelivered() {
        try (ServerProcess server = ServerProcess.builder().start()) {
            Fixture fixture = new Fixture(new Http(server.baseUri()));
            Fixture.Monitor m = fixture.monitor("restart");
            long before = fixture.publish(m, "before");
            Fixture.Reader reader = fixture.subscribe(m, "agent:patient");
            long next = fixture.afterHead(m);
            try (CliProcess watch = CliProcess.start(
                    server.baseUri(), "watch", "--subscription", reader.subscription(), "--token", reader.token())) {
                assertThat(watch.nextLine(WatchIT.LINE)).startsWith("OBS seq=" + before + " ");
                assertThat(watch.nextLine(WatchIT.LINE)).isEqualTo("NEXT " + next);

                server.kill9();
                String down = watch.nextLine(WatchIT.LINE);
                server.restart();
                long meanwhile = new Fixture(new Http(server.baseUri())).publish(m, "meanwhile");

                assertThat(down).startsWith("DOWN ").endsWith("; retrying, nothing is lost while the server is away");
                assertThat(watch.nextLine(BACK))
                        .as("the line after DOWN: no second DOWN while the server is away")
                        .isEqualTo("UP the server answers again; resuming at " + next);
                assertThat(watch.nextLine(WatchIT.LINE))
                        .as("nothing printed before the outage comes again")
                        .startsWith("OBS seq=" + meanwhile + " ")
                        .contains(" subject=meanwhile ");
                assertThat(watch.nextLine(WatchIT.LINE)).isEqualTo("NEXT " + (meanwhile + 1));
            }
        }
    }
}
