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

        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("test-kafka-it", 1, (short) 1))).all().get();
            assertThat(admin.listTopics().names().get()).contains("test-kafka-it");
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
