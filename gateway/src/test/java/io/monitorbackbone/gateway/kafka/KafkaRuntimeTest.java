package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.binding.KafkaClients;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaRuntimeTest {
    private final KafkaClients clients = KafkaClients.of("k:9092", Map.of("MP_KAFKA_SECURITY_PROTOCOL", "SSL"));

    @Test
    void aLogReaderNeverWaitsInKafkaWhateverItsClientIdSays() {
        assertThat(KafkaRuntime.readerConsumerProperties(clients, "mp-follower"))
                .containsEntry("fetch.max.wait.ms", 0)
                .containsEntry("client.id", "mp-follower");
        assertThat(KafkaRuntime.readerConsumerProperties(clients, "anything")).containsEntry("fetch.max.wait.ms", 0);
    }

    @Test
    void everyConsumerReadsCommittedFromTheStartWithoutAGroupAndWithWhatIsPassedThrough() {
        assertThat(KafkaRuntime.consumerProperties(clients, "mp-reader-1", 100))
                .containsEntry("fetch.max.wait.ms", 100)
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("auto.offset.reset", "earliest")
                .containsEntry("enable.auto.commit", false)
                .containsEntry("security.protocol", "SSL")
                .containsEntry("bootstrap.servers", "k:9092")
                .doesNotContainKey("group.id");
    }

    @Test
    void theElectionConsumerBacksOffASecondAndLeavesEverythingToItsGroup() {
        assertThat(KafkaRuntime.groupConsumerProperties(clients, "mp-sweeper", "mp.sweeper"))
                .containsEntry("group.id", "mp.sweeper")
                .containsEntry("retry.backoff.ms", 1_000)
                .containsEntry("session.timeout.ms", 6_000)
                .containsEntry("enable.auto.commit", false)
                .containsEntry("client.id", "mp-sweeper")
                .containsEntry("security.protocol", "SSL");
    }

    @Test
    void theLeaseReplyConsumerWaitsInKafkaForTheNextReplyInsteadOfAskingAHundredTimesASecond() {
        assertThat(KafkaRuntime.leaseReplyConsumerProperties(clients, "mp-lease-replies"))
                .containsEntry("fetch.max.wait.ms", 5_000)
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("client.id", "mp-lease-replies");
    }

    @Test
    void theLastOfSeveralLogProducersTakesRowsWithOneRequestInFlightTheOthersAndALoneOneKafkasFive() {
        assertThat(KafkaRuntime.logProducerProperties(clients, 2, 3))
                .containsEntry("client.id", "mp-gateway-rows")
                .containsEntry("max.in.flight.requests.per.connection", 1)
                .containsEntry("enable.idempotence", true)
                .containsEntry("acks", "all")
                .containsEntry("linger.ms", 0)
                .containsEntry("security.protocol", "SSL");
        assertThat(KafkaRuntime.logProducerProperties(clients, 0, 3))
                .containsEntry("client.id", "mp-gateway")
                .containsEntry("enable.idempotence", true)
                .doesNotContainKey("max.in.flight.requests.per.connection");
        assertThat(KafkaRuntime.logProducerProperties(clients, 1, 3))
                .containsEntry("client.id", "mp-gateway-1")
                .doesNotContainKey("max.in.flight.requests.per.connection");
        assertThat(KafkaRuntime.logProducerProperties(clients, 1, 2)).containsEntry("client.id", "mp-gateway-rows");
        assertThat(KafkaRuntime.logProducerProperties(clients, 0, 1))
                .containsEntry("client.id", "mp-gateway")
                .doesNotContainKey("max.in.flight.requests.per.connection");
        // A setting passed through (MP_KAFKA_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION) is the operator's to make.
        assertThat(KafkaRuntime.logProducerProperties(
                        KafkaClients.of("k:9092", Map.of("MP_KAFKA_MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION", "3")), 2, 3))
                .containsEntry("max.in.flight.requests.per.connection", "3");
    }
}
