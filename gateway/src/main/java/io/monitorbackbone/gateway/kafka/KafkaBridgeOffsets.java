package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.bridge.BridgeApp;
import io.monitorbackbone.bridge.BridgeCounts;
import io.monitorbackbone.gateway.service.BridgeOffsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * {@link BridgeOffsets} with this process's admin client: the topics described, then their end offsets (read
 * committed) and every monitor's group offsets asked at once, all under one deadline.
 */
final class KafkaBridgeOffsets implements BridgeOffsets {
    private final KafkaRuntime kafka;

    KafkaBridgeOffsets(KafkaRuntime kafka) {
        this.kafka = kafka;
    }

    @Override
    public Map<String, Source> read(Map<String, String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Admin admin = kafka.admin();
        Map<String, ListConsumerGroupOffsetsSpec> groups = new HashMap<>();
        topics.keySet().forEach(id -> groups.put(BridgeApp.GROUP_PREFIX + id, new ListConsumerGroupOffsetsSpec()));
        // Asked now, so it runs while the topics are described and their ends read.
        ListConsumerGroupOffsetsResult committed = groups.isEmpty()
                ? null
                : admin.listConsumerGroupOffsets(
                        groups, new ListConsumerGroupOffsetsOptions().timeoutMs(remainingMs(deadline)));

        Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(
                        new TreeSet<>(topics.values()), new DescribeTopicsOptions().timeoutMs(remainingMs(deadline)))
                .topicNameValues();
        Map<String, String> missing = new HashMap<>();
        Map<String, List<TopicPartition>> partitionsOf = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
            try {
                TopicDescription d = e.getValue().get(remainingMs(deadline), TimeUnit.MILLISECONDS);
                partitionsOf.put(
                        e.getKey(),
                        d.partitions().stream()
                                .map(p -> new TopicPartition(e.getKey(), p.partition()))
                                .sorted(Comparator.comparingInt(TopicPartition::partition))
                                .toList());
            } catch (ExecutionException failed) {
                missing.put(e.getKey(), describeProblem(failed.getCause()));
            } catch (TimeoutException late) {
                missing.put(e.getKey(), "Kafka did not describe the topic in time");
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                missing.put(e.getKey(), "interrupted");
            }
        }

        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        partitionsOf.values().forEach(ps -> ps.forEach(tp -> ends.put(tp, OffsetSpec.latest())));
        ListOffsetsResult endOffsets = ends.isEmpty()
                ? null
                : admin.listOffsets(
                        ends, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED).timeoutMs(remainingMs(deadline)));

        Map<String, Source> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> monitor : topics.entrySet()) {
            String topic = monitor.getValue();
            if (missing.containsKey(topic) || !partitionsOf.containsKey(topic)) {
                out.put(monitor.getKey(), new Source(missing.getOrDefault(topic, "not described"), List.of()));
                continue;
            }
            Map<TopicPartition, OffsetAndMetadata> groupOffsets = Map.of();
            String groupProblem = null;
            try {
                groupOffsets = committed
                        .partitionsToOffsetAndMetadata(BridgeApp.GROUP_PREFIX + monitor.getKey())
                        .get(remainingMs(deadline), TimeUnit.MILLISECONDS);
            } catch (ExecutionException failed) {
                if (!(failed.getCause() instanceof GroupIdNotFoundException)) {
                    groupProblem = "cannot read the group's committed offsets: " + failed.getCause();
                }
            } catch (TimeoutException late) {
                groupProblem = "Kafka did not give the group's committed offsets in time";
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                groupProblem = "interrupted";
            }
            List<Partition> partitions = new ArrayList<>();
            for (TopicPartition tp : partitionsOf.get(topic)) {
                Long end = null;
                String problem = groupProblem;
                try {
                    end = endOffsets
                            .partitionResult(tp)
                            .get(remainingMs(deadline), TimeUnit.MILLISECONDS)
                            .offset();
                } catch (ExecutionException failed) {
                    problem = "cannot read the partition's end offset: " + failed.getCause();
                } catch (TimeoutException late) {
                    problem = "Kafka did not give the partition's end offset in time";
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    problem = "interrupted";
                }
                OffsetAndMetadata at = groupOffsets == null ? null : groupOffsets.get(tp);
                partitions.add(new Partition(
                        tp.partition(),
                        end,
                        at == null ? null : at.offset(),
                        at == null ? null : BridgeCounts.parse(at.metadata()),
                        problem));
            }
            out.put(monitor.getKey(), new Source(null, partitions));
        }
        return out;
    }

    private static String describeProblem(Throwable cause) {
        if (cause instanceof UnknownTopicOrPartitionException) {
            return "the topic does not exist";
        }
        if (cause instanceof TopicAuthorizationException) {
            return "the server is not authorized to describe the topic";
        }
        return "cannot describe the topic: " + cause;
    }

    private static int remainingMs(long deadline) {
        return (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }
}
