package io.monitorbackbone.bench.jmh;

import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.Publications;
import java.time.Instant;

/** The monitor and observation the load generator publishes, built the way the gateway builds them. */
final class Fixtures {
    static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    static final Monitor MONITOR = MonitorDefinitions.create(
                    "bench",
                    Json.parseBody(
                            "{\"id\":\"bench\",\"visibility\":\"public\",\"capabilities\":[\"observe\"]}".getBytes()),
                    NOW,
                    false)
            .monitor();

    private Fixtures() {}

    static Draft draft(String subject) {
        return Publications.resolve(
                MONITOR,
                Json.parseBody(("{\"type\":\"com.example.bench\",\"subject\":\"" + subject
                                + "\",\"actor\":\"probe:ci\",\"tier\":\"measured\",\"origin\":\"probe\",\"data\":{\"n\":1,\"tags\":{\"team\":\"core\"}}}")
                        .getBytes()),
                NOW);
    }
}
