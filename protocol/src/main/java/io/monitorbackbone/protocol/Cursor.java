package io.monitorbackbone.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * A subscription's position as stored in the compacted {@code mp.cursors} topic.
 *
 * @param epoch          bumped by seek, the only move backwards; a higher epoch wins a merge outright
 * @param cursor         the next seq to deliver (committed by ack)
 * @param delivered      the highest seq a pull has handed out; anything at or below it is a redelivery
 * @param deliveredCount how many observations pulls have handed out for the first time, in total
 * @param lastPull       when the subscriber last pulled, acked or (re)subscribed
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Cursor(long epoch, long cursor, long delivered, long deliveredCount, String lastPull) {

    public static Cursor start(long cursor, String now) {
        return new Cursor(0, cursor, Math.max(0, cursor - 1), 0, now);
    }

    /**
     * Merges two writes for one subscription so that neither a stale writer nor a replayed record can lower it: within an
     * epoch every field only grows.
     */
    public Cursor merge(Cursor other) {
        if (other == null) {
            return this;
        }
        if (other.epoch != epoch) {
            return other.epoch > epoch ? other : this;
        }
        return new Cursor(
                epoch,
                Math.max(cursor, other.cursor),
                Math.max(delivered, other.delivered),
                Math.max(deliveredCount, other.deliveredCount),
                later(lastPull, other.lastPull));
    }

    /**
     * Whether this value already holds everything {@code other} holds, so that {@code other} merged into it changes
     * nothing. A compacted table keeps only a key's last record: the table holds the merge of every write exactly when
     * its last record carries that merge.
     */
    public boolean carries(Cursor other) {
        return other == null || merge(other).equals(this);
    }

    public Cursor acked(long newCursor, String now) {
        return new Cursor(epoch, newCursor, Math.max(delivered, newCursor - 1), deliveredCount, now);
    }

    public Cursor deliveredUpTo(long seq, long newlyDelivered, String now) {
        return new Cursor(epoch, cursor, Math.max(delivered, seq), deliveredCount + newlyDelivered, now);
    }

    /** The only way backwards: a new epoch, so this write wins over every older one wherever they meet. */
    public Cursor seeked(long newCursor, String now) {
        return new Cursor(epoch + 1, newCursor, delivered, deliveredCount, now);
    }

    public Cursor pulled(String now) {
        return new Cursor(epoch, cursor, delivered, deliveredCount, later(lastPull, now));
    }

    public boolean isRedelivery(long seq) {
        return seq <= delivered;
    }

    private static String later(String a, String b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return a.compareTo(b) >= 0 ? a : b;
    }
}
