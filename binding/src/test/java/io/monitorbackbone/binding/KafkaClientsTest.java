package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {
    @Test
    void everyMpKafkaVariableBecomesAClientPropertyButTheEmbeddedBrokersPort() {
        Map<String, String> env = Map.of(
                "MP_KAFKA_SECURITY_PROTOCOL", "SASL_SSL",
                "MP_KAFKA_SASL_MECHANISM", "PLAIN",
                "MP_KAFKA_PORT", "9130",
                "MP_PROJECTOR_KAFKA_LINGER_MS", "5",
                "KAFKA_BOOTSTRAP_SERVERS", "k:9092",
                "MP_KAFKA_", "nothing");

        assertThat(KafkaClients.passThroughFrom(env))
                .isEqualTo(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN"));
    }

    @Test
    void aClientGetsTheClusterItsIdItsRolesSettingsAndWhatIsPassedThrough() {
        KafkaClients clients = KafkaClients.of(
                "k:9092", Map.of("MP_KAFKA_SECURITY_PROTOCOL", "SSL", "MP_KAFKA_REQUEST_TIMEOUT_MS", "60000"));

        Map<String, Object> p = clients.properties("mp-gateway", Map.of("acks", "all", "request.timeout.ms", 15_000));

        assertThat(p)
                .containsEntry("bootstrap.servers", "k:9092")
                .containsEntry("client.id", "mp-gateway")
                .containsEntry("acks", "all")
                .containsEntry("security.protocol", "SSL")
                .as("the operator's setting is the last word")
                .containsEntry("request.timeout.ms", "60000");
    }

    @Test
    void aStreamsClientNamesNoClientIdOfItsOwn() {
        Properties p = KafkaClients.of("k:9092", Map.of("MP_KAFKA_SECURITY_PROTOCOL", "SSL"))
                .streams(Map.of("application.id", "mp-leases"));

        assertThat(p)
                .containsEntry("bootstrap.servers", "k:9092")
                .containsEntry("application.id", "mp-leases")
                .containsEntry("security.protocol", "SSL")
                .doesNotContainKey("client.id");
    }

    @Test
    void nothingIsPassedThroughByDefault() {
        assertThat(KafkaClients.of("k:9092").properties("c", Map.of()))
                .isEqualTo(Map.of("bootstrap.servers", "k:9092", "client.id", "c"));
    }

    @Test
    void whatSaysWhoAClientIsCannotBePassedThrough() {
        for (String name : new String[] {
            "MP_KAFKA_CLIENT_ID",
            "MP_KAFKA_TRANSACTIONAL_ID",
            "MP_KAFKA_GROUP_ID",
            "MP_KAFKA_BOOTSTRAP_SERVERS",
            "MP_KAFKA_APPLICATION_ID"
        }) {
            assertThatThrownBy(() -> KafkaClients.of("k:9092", Map.of(name, "x")))
                    .as(name)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot be passed through")
                    .hasMessageStartingWith(name + ": ");
        }
        assertThatThrownBy(() -> new KafkaClients("k:9092", Map.of("client.id", "x")))
                .hasMessageContaining("client.id")
                .hasMessageContaining("cannot be passed through");
    }

    @Test
    void withoutAClusterThereIsNoClient() {
        assertThatThrownBy(() -> KafkaClients.of(" ")).hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    }
}
