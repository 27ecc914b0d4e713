package io.monitorbackbone.gateway.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.request.ConfigureMonitor;
import io.monitorbackbone.protocol.request.CreateMonitor;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** MonitorService over in-memory ports: what a create and a configure write, in what order, and what they refuse. */
class MonitorServiceTest {

    private static ObjectNode body(String id) {
        ObjectNode body = Json.object();
        body.put("id", id);
        body.put("visibility", "private");
        body.putArray("types").add("demo.note");
        return body;
    }

    private static ErrorCode code(Throwable t) {
        return ((ProtocolException) t).code();
    }

    @Test
    void aCreateWritesItsLogThenItsConfiguredRowThenCommitsTheDefinitionAndShowsTheOwnerTokenOnce() {
        World w = new World();

        JsonNode reply =
                w.monitors.create(CreateMonitor.parse(body("ci")), null).body();

        assertThat(w.logAdmin.exists("ci")).isTrue();
        assertThat(w.log.records("ci")).hasSize(1);
        assertThat(w.log.at("ci", 1).type()).isEqualTo(Vocabulary.PROTOCOL_TYPE_PREFIX + "configured");
        assertThat(w.tables.written(Topics.MONITORS)).hasSize(1);
        Monitor stored = (Monitor) w.tables.written(Topics.MONITORS).get(0).value();
        assertThat(w.tables.monitor("ci")).isEqualTo(stored);
        String owner = reply.get("owner_token").asText();
        assertThat(stored.ownerIs(owner)).isTrue();
        // The token is kept as a hash only.
        assertThat(Json.MAPPER.valueToTree(stored).toString())
                .doesNotContain(owner)
                .contains(Tokens.hash(owner));
        assertThat(reply.get("monitor").get("created").asText()).isEqualTo("2026-12-01T12:00:00.000Z");
    }

    @Test
    void aSecondCreateOfTheSameIdIsADuplicateAndWritesNothing() {
        World w = new World();
        w.monitors.create(CreateMonitor.parse(body("ci")), null);

        assertThatThrownBy(() -> w.monitors.create(CreateMonitor.parse(body("ci")), null))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.DUPLICATE));
        assertThat(w.log.records("ci")).hasSize(1);
        assertThat(w.tables.written(Topics.MONITORS)).hasSize(1);
    }

    @Test
    void anIdWhoseLogCollidesIsADuplicateAndNoDefinitionIsCommitted() {
        World w = new World();
        w.logAdmin.collides("a.b");

        assertThatThrownBy(() -> w.monitors.create(CreateMonitor.parse(body("a.b")), null))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.DUPLICATE));
        assertThat(w.tables.written(Topics.MONITORS)).isEmpty();
        assertThat(w.tables.monitor("a.b")).isNull();
    }

    @Test
    void aFencedCreateIsADuplicateAndAnUnconfirmedOneIsAFaultWithTheOutcomeUnknown() {
        World w = new World();
        w.logAdmin.nextCommit(LogAdmin.Fence.Outcome.FENCED);
        assertThatThrownBy(() -> w.monitors.create(CreateMonitor.parse(body("ci")), null))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.DUPLICATE));

        w.logAdmin.nextCommit(LogAdmin.Fence.Outcome.UNKNOWN);
        assertThatThrownBy(() -> w.monitors.create(CreateMonitor.parse(body("ci")), null))
                .isInstanceOfSatisfying(
                        ServerFault.class, f -> assertThat(f.isOutcomeUnknown()).isTrue());
        assertThat(w.tables.monitor("ci")).isNull();
    }

    @Test
    void aCreateWhoseTransactionKafkaAbortedIsCommittedByASecondFenceWithOneConfiguredRow() {
        World w = new World();
        w.logAdmin.nextCommits(LogAdmin.Fence.Outcome.ABORTED);

        Reply created = w.monitors.create(CreateMonitor.parse(body("ci")), null);

        assertThat(created.status()).isEqualTo(201);
        assertThat(created.body().at("/monitor/id").asText()).isEqualTo("ci");
        assertThat(w.tables.monitor("ci")).isNotNull();
        assertThat(w.logAdmin.fencesOpened()).containsExactly("ci", "ci");
        assertThat(w.log.records("ci"))
                .as("one configured row, the first attempt's")
                .hasSize(1);
    }

    @Test
    void aCreateAbortedTwiceIsNotCreatedAndSaysSoNotThatItsOutcomeIsUnknown() {
        World w = new World();
        w.logAdmin.nextCommits(LogAdmin.Fence.Outcome.ABORTED, LogAdmin.Fence.Outcome.ABORTED);

        assertThatThrownBy(() -> w.monitors.create(CreateMonitor.parse(body("ci")), null))
                .isInstanceOfSatisfying(ServerFault.class, f -> {
                    assertThat(f.isOutcomeUnknown()).isFalse();
                    assertThat(f.getMessage()).contains("aborted");
                });
        assertThat(w.tables.monitor("ci")).isNull();
        // The retry the answer asks for completes it.
        assertThat(w.monitors.create(CreateMonitor.parse(body("ci")), null).status())
                .isEqualTo(201);
    }

    @Test
    void withARegistrationTokenACreateWithoutItIsRefusedBeforeAnythingIsWritten() {
        World w = new World(Optional.of("let-me-in"), Optional.empty());

        assertThatThrownBy(() -> w.monitors.create(CreateMonitor.parse(body("ci")), "wrong"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAUTHORIZED));
        assertThat(w.logAdmin.exists("ci")).isFalse();
        assertThat(w.tables.written()).isEmpty();

        JsonNode reply =
                w.monitors.create(CreateMonitor.parse(body("ci")), "let-me-in").body();
        assertThat(reply.get("monitor").get("attested").asBoolean()).isTrue();
    }

    @Test
    void onlyTheOwnerConfiguresAndAPrivateMonitorIsNotFoundWithoutAToken() {
        World w = new World();
        String owner = w.monitors
                .create(CreateMonitor.parse(body("ci")), null)
                .body()
                .get("owner_token")
                .asText();

        assertThatThrownBy(() -> w.monitors.get("ci", null))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() ->
                        w.monitors.configure("ci", ConfigureMonitor.parse("pause", Json.object()), "not-the-owner"))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.NOT_FOUND));

        JsonNode reply = w.monitors
                .configure("ci", ConfigureMonitor.parse("pause", Json.object().put("reason", "maintenance")), owner)
                .body();

        assertThat(reply.get("seq").asLong()).isEqualTo(2);
        assertThat(w.tables.monitor("ci").active()).isFalse();
        assertThat(w.tables.written(Topics.MONITORS)).hasSize(2);
        assertThat(w.log.at("ci", 2).data().path("payload").path("action").asText())
                .isEqualTo("pause");
    }

    @Test
    void aPauseJustAfterARetireOnAnotherGatewayIsRefusedNotAnUndoOfTheRetirement() {
        World w = new World();
        String owner = w.monitor("ci");
        Monitor retiredElsewhere = MonitorDefinitions.transition(w.tables.monitor("ci"), "retire");
        java.util.concurrent.atomic.AtomicBoolean read = new java.util.concurrent.atomic.AtomicBoolean();
        w.tables.onCatchUp(table -> {
            if (table.equals(Topics.MONITORS) && read.compareAndSet(false, true)) {
                w.tables.apply(retiredElsewhere);
            }
        });
        int before = w.tables.written(Topics.MONITORS).size();

        assertThatThrownBy(() -> w.monitors.configure("ci", ConfigureMonitor.parse("pause", Json.object()), owner))
                .satisfies(e -> assertThat(code(e)).isEqualTo(ErrorCode.UNAVAILABLE));
        assertThat(w.tables.written(Topics.MONITORS)).hasSize(before);
        assertThat(w.tables.monitor("ci").retired()).isTrue();
    }

    @Test
    void retiringAMonitorReleasesTheLeasesItsSubscriptionsHold() {
        World w = new World();
        String owner = w.monitor("ci");
        String[] held = w.subscribe("ci", "agent:a", owner, "observe", "act");
        String[] other = w.subscribe("ci", "agent:b", owner, "observe", "act");
        w.tables.lease("ci", new Lease("build-1", Lease.holderOf(held[0]), 3600, World.T0, World.T0, 1, 1, 5, false));
        w.tables.lease("ci", new Lease("build-2", null, 3600, World.T0, World.T0, 1, 1, 5, false));

        w.monitors.configure("ci", ConfigureMonitor.parse("retire", Json.object()), owner);

        assertThat(w.decisions.sent()).singleElement().satisfies(c -> {
            assertThat(c.action()).isEqualTo(LeaseCommand.RELEASE);
            assertThat(c.subject()).isEqualTo("build-1");
            assertThat(c.subscription()).isEqualTo(held[0]);
            assertThat(c.reason()).isEqualTo("monitor retired");
        });
        assertThat(other[0]).isNotEqualTo(held[0]);
    }

    @Test
    void stateFoldsTheLogUpToTheHeadWhenTheProjectorLags() {
        World w = new World();
        String owner = w.monitor("ci");
        w.publish("ci", owner, "build-1");
        w.publish("ci", owner, "build-2");

        JsonNode state = w.monitors.state("ci", null).body();

        assertThat(state.toString()).contains("\"as_of_seq\":3");
    }
}
