package io.monitorbackbone.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

class SharedTestKafkaIT {

    @Test
    void startsOneBrokerHoweverManyAskAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<String>> askers = Collections.nCopies(4, TestKafka::bootstrapServers);
            List<Future<String>> answers = pool.invokeAll(askers);
            Set<String> distinct = answers.stream().map(SharedTestKafkaIT::get).collect(Collectors.toSet());
            assertThat(distinct).containsExactly(TestKafka.bootstrapServers());
        } finally {
            pool.shutdownNow();
        }

        try (Admin admin =
                Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
            // A fresh name: a broker given by KAFKA_BOOTSTRAP_SERVERS may have seen an earlier run.
            String topic = "test-kafka-it-" + java.util.UUID.randomUUID();
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                    .all()
                    .get(60, java.util.concurrent.TimeUnit.SECONDS);
            // A created topic reaches the metadata that listTopics reads a moment later, longer on a busy machine.
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(60))
                    .pollInterval(java.time.Duration.ofMillis(200))
                    .untilAsserted(
                            () -> assertThat(admin.listTopics().names().get(30, java.util.concurrent.TimeUnit.SECONDS))
                                    .contains(topic));
        }
    }

    private static String get(Future<String> future) {
        try {
            return future.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
