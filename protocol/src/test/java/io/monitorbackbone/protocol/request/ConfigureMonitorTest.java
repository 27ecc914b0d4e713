package io.monitorbackbone.protocol.request;

import static io.monitorbackbone.protocol.request.Bodies.body;
import static io.monitorbackbone.protocol.request.Bodies.refused;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigureMonitorTest {
    @Test
    void anUpdateCarriesItsPatchRuleAndReason() {
        ConfigureMonitor r = ConfigureMonitor.parse(
                "update",
                body(
                        "{\"patch\":{\"name\":\"Wire demo v2\",\"ttl_seconds\":7200},\"reason\":\"rename\",\"rule\":\"r1\"}"));

        assertThat(r.action()).isEqualTo("update");
        assertThat(r.patch()).isEqualTo(body("{\"name\":\"Wire demo v2\",\"ttl_seconds\":7200}"));
        assertThat(r.rule()).isEqualTo("r1");
        assertThat(r.reason()).isEqualTo("rename");
    }

    @Test
    void anUpdateWithoutAPatchChangesNothing() {
        assertThat(ConfigureMonitor.parse("update", body("{}")).patch()).isEqualTo(body("{}"));
        assertThat(ConfigureMonitor.parse("update", body("{\"patch\":null}")).patch())
                .isEqualTo(body("{}"));
    }

    @Test
    void theOtherActionsIgnoreAPatch() {
        for (String action : List.of("pause", "resume", "retire")) {
            ConfigureMonitor r = ConfigureMonitor.parse(action, body("{\"patch\":7,\"reason\":\"maintenance\"}"));

            assertThat(r.patch()).isNull();
            assertThat(r.reason()).isEqualTo("maintenance");
        }
    }

    @Test
    void aPatchIsAnObjectOfPatchableFields() {
        refused(
                () -> ConfigureMonitor.parse("update", body("{\"patch\":[1]}")),
                "{\"code\":\"INVALID\",\"error\":\"patch must be an object of fields to change\",\"done\":[]}");
        refused(
                () -> ConfigureMonitor.parse(
                        "update", body("{\"patch\":{\"owner\":\"x\",\"name\":\"n\",\"capabilities\":[]}}")),
                "{\"code\":\"INVALID\",\"error\":\"these fields cannot be patched: owner, capabilities\",\"done\":[],"
                        + "\"invalid\":[\"owner\",\"capabilities\"],\"patchable\":[\"name\",\"description\",\"source\",\"filter\","
                        + "\"horizon\",\"visibility\",\"default_grant\",\"cadence\",\"ttl_seconds\",\"retire_after_mute_seconds\","
                        + "\"budget\",\"rules\",\"types\",\"limits\"]}");
    }

    @Test
    void anUnknownActionIsNotAnAction() {
        refused(
                () -> ConfigureMonitor.parse("explode", body("{}")),
                "{\"code\":\"NOT_FOUND\",\"error\":\"unknown monitor action explode\",\"done\":[],\"action\":\"explode\"}");
    }

    @Test
    void aRequestRoundTripsThroughItsJson() {
        for (String action : ConfigureMonitor.ACTIONS) {
            ConfigureMonitor r = ConfigureMonitor.parse(
                    action, body("{\"patch\":{\"horizon\":\"day\"},\"rule\":\"r\",\"reason\":\"why\"}"));

            assertThat(ConfigureMonitor.parse(action, r.toJson())).isEqualTo(r);
        }
        ConfigureMonitor bare = ConfigureMonitor.parse("pause", body("{}"));
        assertThat(ConfigureMonitor.parse("pause", bare.toJson())).isEqualTo(bare);
    }
}
