package io.monitorbackbone.gateway.service;

import java.util.Map;

/**
 * Creating monitors' logs and moving their retention: the topic of each, its retention time and floor, and the fence
 * that lets exactly one create of a monitor id finish (docs/adr/0011-atomic-create.md). Failures are
 * {@code ServerFault}s. Implemented over Kafka by {@code kafka.KafkaLogAdmin}.
 */
public interface LogAdmin {

    /** What creating a monitor's log came to. */
    enum Created {
        /** The log was created now. */
        NEW,
        /** The log existed already: the log of a create cut short, which this one completes. */
        EXISTING,
        /** The id collides with another monitor's log (ids that differ only in '.' and '_' share a name in Kafka). */
        COLLIDING
    }

    /** Creates the monitor's log, kept forever unless {@code retentionSeconds} is set. */
    Created createLog(String monitorId, Long retentionSeconds);

    /** Applies a monitor's new retention time to its log. */
    void setRetention(String monitorId, Long retentionSeconds);

    /**
     * Drops every record below the given offset of each monitor's log ({@code monitor id -> offset}), moving their
     * retention floors; returns once Kafka has.
     */
    void deleteBefore(Map<String, Long> offsetByMonitor);

    /** Opens the one create of this id that may finish, fencing every earlier create of it in any gateway. */
    Fence openCreate(String monitorId);

    /** One create of a monitor id: its definition is the create's commit point. */
    interface Fence extends AutoCloseable {
        /** What committing the definition came to. */
        enum Outcome {
            /** The definition is in {@code mp.monitors}. */
            COMMITTED,
            /** A later create of the same id fenced this one: nothing of it was committed. */
            FENCED,
            /**
             * Kafka aborted the transaction before it could commit (its coordinator had timed it out: the commit was
             * answered {@code INVALID_TXN_STATE}): nothing of it was committed.
             */
            ABORTED,
            /** Kafka did not say; the definition may or may not be there. */
            UNKNOWN
        }

        /** Writes the definition in a transaction of its own and commits it. */
        Outcome commit(String table, String key, Object value);

        /** Why the last commit did not report {@link Outcome#COMMITTED}. */
        Exception failure();

        @Override
        void close();
    }
}
