package io.monitorbackbone.gateway.service;

import io.monitorbackbone.bridge.BridgeCounts;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where each bridged monitor's consumer group stands in its source topic (docs/adr/0015-bridge.md): the source's end
 * offsets, the group's committed offsets and the counts they carry, read on request in one batch of Kafka admin calls.
 * Implemented over Kafka by {@code kafka.KafkaBridgeOffsets}.
 */
public interface BridgeOffsets {

    /**
     * One partition of a source topic.
     *
     * @param end       the partition's end as a committed reader sees it (its last stable offset), null when unread
     * @param committed the next offset the monitor's group will bridge, null when the group has none here (no member has
     *                  been assigned the partition yet) or it could not be read
     * @param counts    what the partition has become so far, as the committed offset says, null when it says nothing
     * @param problem   why {@code end} or {@code committed} could not be read, null when both were
     */
    record Partition(int partition, Long end, Long committed, BridgeCounts counts, String problem) {}

    /**
     * One monitor's source.
     *
     * @param missing    why the topic could not be described (it does not exist, the server may not see it, no answer
     *                   in time), null when it was
     * @param partitions its partitions, in order; empty when {@code missing} is set
     */
    record Source(String missing, List<Partition> partitions) {}

    /**
     * Reads every monitor's source at once, within the timeout: what was not read by then is named as a problem, never
     * waited for.
     *
     * @param topics monitor id to its source topic
     */
    Map<String, Source> read(Map<String, String> topics, Duration timeout);
}
