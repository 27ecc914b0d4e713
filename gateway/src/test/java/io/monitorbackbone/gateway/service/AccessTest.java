package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.service.fake.FakeLog;
import io.monitorbackbone.gateway.service.fake.FakeTables;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The one access check: a monitor this gateway has not read yet (another gateway created it a moment ago) is looked
 * up again after catching up with the monitors table, on every path that names a monitor.
 */
class AccessTest {
    private final List<String> caughtUp = new ArrayList<>();

    /** A catalog whose follower, asked to catch up, reads {@code created} from the monitors table. */
    private FakeTables catalogThatLearns(Monitor created) {
        FakeTables tables = new FakeTables();
        tables.onCatchUp(table -> {
            caughtUp.add(table);
            if (table.equals(Topics.MONITORS)) {
                tables.apply(created);
            }
        });
        return tables;
    }

    private static ErrorCode refusedWith(Runnable call) {
        try {
            call.run();
        } catch (ProtocolException e) {
            return e.code();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof ProtocolException pe) {
                return pe.code();
            }
            throw e;
        }
        throw new AssertionError("not refused");
    }

    @Test
    void aMonitorMissedByThisGatewayIsFoundAfterCatchingUp() {
        Monitor created = Fixtures.monitor("m-new", "private", null, List.of());
        FakeTables catalog = catalogThatLearns(created);
        assertThat(Access.visibleMonitor(catalog, "m-new", Fixtures.OWNER_TOKEN, "monitor not found"))
                .isEqualTo(created);
        assertThat(caughtUp).containsExactly(Topics.MONITORS);
    }

    @Test
    void aMonitorTheBearerMayNotSeeIsNotFoundEvenAfterCatchingUp() {
        FakeTables catalog = catalogThatLearns(Fixtures.monitor("m-new", "private", null, List.of()));
        assertThatThrownBy(() -> Access.visibleMonitor(catalog, "m-new", "someone-else", "monitor not found"))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).isEqualTo("monitor not found");
                });
        assertThat(caughtUp).containsExactly(Topics.MONITORS);
    }

    @Test
    void aPublishToAMonitorJustCreatedElsewhereIsDecidedOnThatMonitor() {
        // A public monitor and a bearer that is not its owner: found after catching up, the publish is refused as
        // unauthorised; a publish that never caught up would have answered not found.
        FakeTables catalog = catalogThatLearns(Fixtures.monitor("m-new", "public", null, List.of()));
        PublishService publish = new PublishService(catalog, new FakeLog(catalog), Runnable::run, Clock.systemUTC());
        assertThat(refusedWith(() -> publish.publish("m-new", "not-the-owner", "{}".getBytes(StandardCharsets.UTF_8))
                        .toCompletableFuture()
                        .join()))
                .isEqualTo(ErrorCode.UNAUTHORIZED);
        assertThat(caughtUp).contains(Topics.MONITORS);
    }

    @Test
    void aConfigureOfAMonitorJustCreatedElsewhereIsDecidedOnThatMonitor() {
        FakeTables catalog = catalogThatLearns(Fixtures.monitor("m-new", "public", null, List.of()));
        MonitorService monitors =
                new MonitorService(null, catalog, new FakeLog(catalog), null, Optional.empty(), Clock.systemUTC());
        assertThat(refusedWith(() -> monitors.configure(
                        "m-new",
                        io.monitorbackbone.protocol.request.ConfigureMonitor.parse("pause", Fixtures.object("{}")),
                        "not-the-owner")))
                .isEqualTo(ErrorCode.UNAUTHORIZED);
        assertThat(caughtUp).contains(Topics.MONITORS);
    }
}
