package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deployment whose tables were created with fewer partitions than it is now started with: an explicit
 * {@code MP_TABLE_PARTITIONS} that differs from a keyed table refuses the start, and so does a table whose partitions
 * were raised under its records, each as one line naming what to do.
 */
class TablePartitionsIT {

    @Test
    void tablesOfAnotherPartitionCountOrRaisedUnderTheirRecordsRefuseTheStart(@TempDir Path data) throws Exception {
        // A monitor id whose key six partitions put outside partition 0, where one partition wrote it.
        String id = IntStream.range(0, 100)
                .mapToObj(i -> "parted-" + i)
                .filter(candidate -> TopicLayout.partitionOf(candidate, 6) != 0)
                .findFirst()
                .orElseThrow();
        try (ServerProcess old = ServerProcess.builder()
                .env("MP_DATA", data.toString())
                .env("MP_TABLE_PARTITIONS", "1")
                .start()) {
            Walk walk = new Walk(new Http(old.baseUri()));
            Walk.Monitor m = walk.createMonitor(id);
            walk.ack(walk.subscribe(m, "agent:parted"), 3);
            Map<String, Object> client = new HashMap<>(old.kafkaClientProperties());
            try (Admin admin = Admin.create(client)) {
                assertThat(admin.describeTopics(TopicLayout.KEYED_TABLES)
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .values())
                        .allSatisfy(t -> assertThat(t.partitions()).hasSize(1));
                // What raising a KafkaTopic's partitions, or kafka-topics --alter, does to a table.
                admin.createPartitions(Map.of(Topics.MONITORS, NewPartitions.increaseTo(6)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            old.stop();
        }

        assertRefusedInOneLine(
                RefusedStart.run(data, Map.of("MP_TABLE_PARTITIONS", "6")),
                "mp.subscriptions has 1 partition, not MP_TABLE_PARTITIONS=6",
                "set MP_TABLE_PARTITIONS=1");
        assertRefusedInOneLine(
                RefusedStart.run(data, Map.of()),
                "mp.monitors has 6 partitions, but its record at partition 0",
                "docs/operations.md#table-partitions",
                "MP_TABLE_PARTITIONS");
    }

    /**
     * Exit status 1, never ready, and the reason as one line without a stack trace. The embedded broker, stopped while
     * it was still loading its group metadata from the data directory, may log its own lines around it.
     */
    private static void assertRefusedInOneLine(RefusedStart run, String... texts) {
        assertThat(run.exit()).as(run.output()).isEqualTo(1);
        assertThat(run.output()).doesNotContain("monitor-backbone ready").doesNotContain("\tat ");
        assertThat(run.output().lines().filter(l -> l.startsWith("monitor-backbone cannot start: ")))
                .as(run.output())
                .singleElement()
                .satisfies(line -> assertThat(line).contains(texts));
    }
}
