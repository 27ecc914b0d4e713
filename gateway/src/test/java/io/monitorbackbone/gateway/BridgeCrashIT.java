package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once across kill -9 (docs/adr/0015-bridge.md): a bridge-only process is killed while it works through
 * thousands of records and started again; the monitor's log then holds one observation per source record, no ce_id
 * twice, no offset of any source partition missing, each key's records in the order they were sent.
 */
class BridgeCrashIT {
    private static final Duration GENEROUS = Duration.ofSeconds(180);
    private static final int BEFORE_KILL = 5000;
    private static final int AFTER_KILL = 1000;
    private static final int KEYS = 20;

    @Test
    void killNineMidStreamNeitherLosesNorDoublesARecord(@TempDir Path gatewayData, @TempDir Path bridgeData)
            throws Exception {
        try (ServerProcess gateway = ServerProcess.builder()
                .env("MP_DATA", gatewayData.toString())
                .env("MP_ROLES", "gateway,projector,leases")
                .start()) {
            Map<String, Object> client = new HashMap<>(gateway.kafkaClientProperties());
            String bootstrap = (String) client.get("bootstrap.servers");
            String topic = BridgeIT.newTopic(bootstrap, client, 3);
            Http http = new Http(gateway.baseUri());
            Walk.Monitor m = new Walk(http).monitorWith(BridgedTicks.monitorBody(topic));
            try (BridgedTicks ticks = new BridgedTicks(client, topic, m.id(), KEYS)) {
                ticks.produce(0, BEFORE_KILL);
                try (ServerProcess bridge = ServerProcess.builder()
                        .env(gateway.sharedBrokerEnv())
                        .env("MP_DATA", bridgeData.toString())
                        .env("MP_ROLES", "bridge")
                        .env("MP_INSTANCE_ID", "crash-bridge")
                        .readyWhenLogged("monitor-backbone ready: roles bridge")
                        .start()) {
                    ticks.awaitTicks("the bridge has begun", 1);
                    bridge.kill9();
                    int atKill = ticks.awaitTicks("the log read at the kill", 0);
                    ticks.produce(BEFORE_KILL, BEFORE_KILL + AFTER_KILL);
                    bridge.restart();
                    ticks.awaitTicks("every source record is bridged", BEFORE_KILL + AFTER_KILL);
                    ticks.assertExactlyOnce(BEFORE_KILL + AFTER_KILL, atKill);

                    // The restarted process's meters: what it bridged since it started, and that it bridges one
                    // monitor.
                    String metrics = new Http(bridge.managementUri())
                            .get("/q/metrics", null)
                            .body();
                    assertThat(sample(metrics, "mp_bridge_records_total{outcome=\"bridged\""))
                            .isGreaterThanOrEqualTo(AFTER_KILL);
                    assertThat(sample(metrics, "mp_bridge_monitors")).isEqualTo(1);
                }
            }
        }
    }

    private static double sample(String scrape, String prefix) {
        return scrape.lines()
                .filter(line -> line.startsWith(prefix))
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " in the scrape"));
    }
}
