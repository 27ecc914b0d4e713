package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class RolesTest {

    @Test
    void theDefaultIsEveryRole() {
        Roles all = Roles.parse(Roles.ALL);
        assertThat(all.set()).containsExactlyInAnyOrder(Roles.Role.values());
        assertThat(all).hasToString("gateway,projector,leases,bridge");
    }

    @Test
    void aCommaListWithBlanksAndRepeatsIsItsSet() {
        Roles roles = Roles.parse(" leases, projector ,leases");
        assertThat(roles.set()).containsExactlyInAnyOrder(Roles.Role.PROJECTOR, Roles.Role.LEASES);
        assertThat(roles.has(Roles.Role.GATEWAY)).isFalse();
        assertThat(roles).hasToString("projector,leases");
    }

    @Test
    void anUnknownRoleOrNoneIsRefusedNamingTheVariable() {
        assertThatThrownBy(() -> Roles.parse("gateway,proxy"))
                .hasMessage("MP_ROLES: unknown role 'proxy'; the roles are gateway,projector,leases,bridge");
        assertThatThrownBy(() -> Roles.parse("Gateway")).hasMessageContaining("unknown role 'Gateway'");
        assertThatThrownBy(() -> Roles.parse(" , ")).hasMessageStartingWith("MP_ROLES names no role");
    }

    @Test
    void theBridgeIsARoleOfItsOwn() {
        Roles bridge = Roles.parse("bridge");
        assertThat(bridge.set()).containsExactly(Roles.Role.BRIDGE);
        assertThat(bridge.has(Roles.Role.GATEWAY)).isFalse();
    }

    @Test
    void withoutTheGatewayRoleNoHttpPortIsBound() {
        assertThat(new RolesConfigSource("projector,leases").getValue("quarkus.http.host-enabled"))
                .isEqualTo("false");
        assertThat(new RolesConfigSource("leases,gateway").getProperties()).isEmpty();
        assertThat(new RolesConfigSource(null).getProperties()).isEmpty();
        // Left to the start's own refusal, which names the role.
        assertThat(new RolesConfigSource("proxy").getProperties()).isEmpty();
    }

    @Test
    void theInstanceIdDefaultsToHostAndPort() {
        assertThat(InstanceId.resolve(Optional.empty(), 8130)).isEqualTo(InstanceId.hostName() + "-8130");
        assertThat(InstanceId.resolve(Optional.of("  "), 8131)).endsWith("-8131");
        assertThat(InstanceId.resolve(Optional.of("gw-a.eu_1"), 8130)).isEqualTo("gw-a.eu_1");
    }

    @Test
    void anInstanceIdKafkaWouldRefuseIsRefused() {
        assertThatThrownBy(() -> InstanceId.resolve(Optional.of("gw a"), 8130))
                .hasMessage("MP_INSTANCE_ID 'gw a' is not a Kafka member id: use 1-200 of A-Z a-z 0-9 . _ -");
        assertThatThrownBy(() -> InstanceId.resolve(Optional.of("gw/1"), 8130)).hasMessageContaining("'gw/1'");
        assertThatThrownBy(() -> InstanceId.resolve(Optional.of(".."), 8130)).hasMessageContaining("'..'");
        assertThatThrownBy(() -> InstanceId.resolve(Optional.of("x".repeat(201)), 8130))
                .hasMessageContaining("1-200");
        assertThatThrownBy(() -> InstanceId.validate("héte-8130", false))
                .hasMessageContaining("the default instance id")
                .hasMessageEndingWith("and set MP_INSTANCE_ID");
    }
}
