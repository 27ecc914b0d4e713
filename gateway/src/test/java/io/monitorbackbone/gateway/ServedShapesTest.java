package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Discover;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Publications;
import io.monitorbackbone.protocol.States;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.testsupport.Schemas;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every object the server builds, checked against the project's JSON schemas without a server in between. */
class ServedShapesTest {
    private static final Instant NOW = Instant.parse("2026-11-29T18:00:00Z");

    private static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes());
    }

    private final Monitor monitor = MonitorDefinitions.create(
                    "shape-1",
                    body(
                            "{\"owner\":\"human:alice\",\"visibility\":\"shared\",\"ttl_seconds\":60,\"types\":[\"demo.note\"],\"filter\":{\"types\":[\"demo.*\"]},"
                                    + "\"rules\":[{\"id\":\"r1\",\"when\":{\"types\":[\"demo.note\"]},\"then\":\"notify:human\"}]}"),
                    NOW,
                    false)
            .monitor();

    @Test
    void monitorsValidate() {
        Schemas.assertValid("monitor", monitor.served(7, Limits.forMonitor(1)));
    }

    @Test
    void observationsAndProtocolRowsValidate() {
        Draft published = Publications.resolve(
                monitor,
                body(
                        "{\"type\":\"demo.note\",\"subject\":\"s\",\"data\":{\"v\":1},\"tags\":{\"k\":\"v\"},\"time\":\"2026-01-01T00:00:00+02:00\","
                                + "\"supersedes\":{\"source\":\"monitor:shape-1\",\"id\":\"3\"},\"wasDerivedFrom\":[{\"source\":\"monitor:shape-1\",\"id\":\"3\"}]}"),
                NOW);
        ObjectNode servedMonitor = monitor.served(0, Limits.forMonitor(1));
        List<Draft> rows = List.of(
                published,
                ProtocolRows.configured(monitor, servedMonitor, "create", null, null, null, null, true, NOW),
                ProtocolRows.row(monitor, Vocabulary.SUBSCRIBED, "agent:reader", null, Json.object(), false, NOW),
                ProtocolRows.rejected(
                        monitor,
                        ProtocolException.of(ErrorCode.INVALID, "no"),
                        body("{\"x\":1}"),
                        "agent:x",
                        null,
                        NOW));

        for (Draft d : rows) {
            Schemas.assertValid("observation", d.served("shape-1", 12, false));
            Schemas.assertValid("observation", d.served("shape-1", 12, true));
        }
    }

    @Test
    void subscriptionsValidate() {
        Subscription s = new Subscription(
                "sub-1",
                "shape-1",
                "agent:r",
                Json.object(),
                List.of("observe"),
                "none",
                "pull",
                null,
                null,
                "2026-11-29T18:00:00.000Z",
                true,
                "hash");

        Schemas.assertValid("subscription", s.served(Cursor.start(0, "2026-11-29T18:00:00.000Z"), 0));
    }

    @Test
    void statesValidateEmptyAndFull() {
        Aggregate some = Aggregate.EMPTY
                .apply(
                        1,
                        Publications.resolve(monitor, body("{\"type\":\"demo.note\"}"), NOW)
                                .served("shape-1", 1, false))
                .apply(
                        2,
                        Publications.resolve(
                                        monitor,
                                        body("{\"type\":\"demo.claim.contradiction\",\"actor\":\"agent:b\"}"),
                                        NOW)
                                .served("shape-1", 2, false));

        ObjectNode empty = States.render(monitor, Aggregate.EMPTY, new States.Context(0, 1, 0, 0, null, NOW));
        ObjectNode full = States.render(monitor, some, new States.Context(2, 1, 1, 2, NOW, NOW.plusSeconds(120)));

        Schemas.assertValid("state", empty);
        Schemas.assertValid("state", full);
        assertThat(empty.at("/ages/since_last_observation_s").isNull()).isTrue();
        assertThat(full.at("/counters/observations").asLong()).isEqualTo(2);
        assertThat(full.get("contradictions_open").asLong()).isEqualTo(1);
        assertThat(full.at("/confidence/gaps").toString())
                .contains("stale_source")
                .doesNotContain("no_subscribers");
    }

    @Test
    void errorsOfEveryKindValidate() {
        for (ErrorCode code : ErrorCode.values()) {
            Schemas.assertValid(
                    "error", ProtocolException.of(code, "why").with("detail", 1).toJson());
        }
    }

    @Test
    void discoverNamesTheProtocolVersion() {
        assertThat(Discover.document().get("supportedVersions").toString()).isEqualTo("[\"0.1\"]");
    }
}
