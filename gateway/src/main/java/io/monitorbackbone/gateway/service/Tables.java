package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.lease.Lease;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The compacted tables (monitors, subscriptions, cursors, leases, the projector's state) as this gateway's follower
 * sees them, each monitor's tail as the follower read it, and writing a table row. What is read here may lag the
 * cluster until {@link #catchUp}; this gateway's own acknowledged writes are in it as soon as they are
 * {@code apply}-ed. Implemented over Kafka by {@code kafka.KafkaTables}.
 */
public interface Tables {

    /**
     * Returns once this view holds every write to {@code table} (a {@code binding.Topics} name) that any gateway had
     * acknowledged before the call; a {@code ServerFault} when it could not tell in time.
     */
    void catchUp(String table);

    /** The monitor's definition; null when this view has none. */
    Monitor monitor(String id);

    Collection<Monitor> monitors();

    /** The subscription's definition; null when this view has none. */
    Subscription subscription(String id);

    /** The subscription of this subscriber (one actor) on the monitor; null when it has none. */
    Subscription subscriptionOf(String monitorId, String subscriber);

    List<Subscription> subscriptionsOf(String monitorId);

    /** The subscriptions that push to a webhook ({@link Subscription#pushes}), of every monitor this view holds. */
    default List<Subscription> pushingSubscriptions() {
        List<Subscription> out = new java.util.ArrayList<>();
        for (Monitor m : monitors()) {
            for (Subscription s : subscriptionsOf(m.id())) {
                if (s.pushes()) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    /**
     * Has {@code listener} run each time this view applies a subscription that pushes (a create, an update, one read
     * from another gateway), so the pusher need not look for work while there is none. The default never runs it.
     */
    default void onPushing(Runnable listener) {}

    /** The subscription's cursor; null when this view has not read it yet. */
    Cursor cursor(String subscriptionId);

    /** The leases of one monitor as the leases service last wrote them, keyed {@code <monitor>\u0000<subject>}. */
    Map<String, Lease> leasesOf(String monitorId);

    /** The projector's fold of the monitor's log; {@code Aggregate.EMPTY} before it has published one. */
    Aggregate state(String monitorId);

    /**
     * Waits at most {@code timeout} until the projector's fold of the monitor reaches {@code seq}; the fold it has
     * then, which may still lag.
     */
    Aggregate awaitState(String monitorId, long seq, Duration timeout);

    /**
     * What this gateway's follower has read of the monitor's log lately. Never null. Asking is needing it: the follower
     * reads the log from now on (from its end minus a recent window, when it did not), until nothing has needed it for
     * the follow idle time ({@code MP_FOLLOW_IDLE}).
     */
    Tail tail(String monitorId);

    /**
     * {@link #tail} without asking the follower to read the log: what it holds of it now, which for a log no reader of
     * this gateway needs is nothing recent (a fold brought up from it falls back to the log and the projector).
     */
    default Tail peek(String monitorId) {
        return tail(monitorId);
    }

    /** One lock per key: serialises this gateway's read-modify-write of one subscription, subscriber or monitor. */
    Object lockFor(String key);

    /** The lock key of one subscriber on one monitor. */
    static String readerKey(String monitorId, String subscriber) {
        return monitorId + '\u0000' + subscriber;
    }

    /** Writes the latest value of a key in a compacted table (as JSON); returns once Kafka acknowledged it. */
    void put(String table, String key, Object value);

    /** Writes a plain-text value, for topics other apps read with a string serde; returns once acknowledged. */
    void putText(String topic, String key, String value);

    /** {@link #putText} without blocking: the stage completes once Kafka acknowledged the write. */
    CompletableFuture<Void> putTextAsync(String topic, String key, String value);

    /** This gateway's own acknowledged write of a definition, in this view at once. */
    void apply(Monitor monitor);

    void apply(Subscription subscription);

    /** This gateway's own acknowledged cursor write, merged with what the view holds; returns the merged cursor. */
    Cursor apply(String subscriptionId, Cursor cursor);

    /**
     * What this gateway's follower has read of one monitor's log: its last seq, the types and subjects it carried
     * lately, its newest observations, and the signal that fires on each append.
     */
    interface Tail {
        /** The seq of the last record read; 0 before any. */
        long lastSeq();

        /**
         * Completes at the next append read. Taken before looking at {@link #lastSeq()}, it cannot miss an append
         * between the look and the wait.
         */
        CompletableFuture<Void> nextAppend();

        /** Types in the records read (the newest ones; the projector's fold has the rest). */
        List<String> seenTypes();

        /** Whether a producer published this subject lately (recent records only). */
        boolean publishedRecently(String subject);

        /** The seq of the record written with this {@code ce_id}, waiting at most {@code timeout}; null if not read. */
        Long awaitSeqOf(String eventId, Duration timeout);

        /**
         * {@code base} brought up to {@code head} with the observations held after it, folded as the projector folds
         * them; null when they are no longer all held.
         */
        Aggregate foldOnto(String monitorId, Aggregate base, long head);

        /**
         * Keeps the log followed until the hold is closed (a parked pull, a stream, a watch): the follow idle time
         * starts when the last hold closes. Asks the follower to read the log if it does not.
         */
        default Hold hold() {
            return () -> {};
        }

        /** This gateway's lease-subject mark of the subject was acknowledged: {@link #publishedRecently} from now on. */
        default void published(String subject) {}
    }

    /** A {@link Tail#hold}; closing it twice is closing it once. */
    interface Hold extends AutoCloseable {
        @Override
        void close();
    }
}
