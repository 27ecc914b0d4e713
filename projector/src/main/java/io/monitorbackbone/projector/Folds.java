package io.monitorbackbone.projector;

import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The aggregates of the monitors one fold loop owns (their logs are assigned to its consumer), with no Kafka in it:
 * records are applied as they come and each changed aggregate is encoded once when the loop writes
 * ({@link #takeChanged}). At most {@code maxHeld} aggregates are kept decoded, the most recently folded; the others
 * are kept as their JSON, decoded again when their monitor's next record comes. A changed aggregate stays changed
 * whichever form it is in, so nothing folded is lost before it is written.
 */
final class Folds {
    /** What one write sends to {@code mp.state}: the aggregate's JSON and its timestamp (its latest record's). */
    record Write(String monitor, byte[] json, long timestamp) {}

    private static final class Owned {
        /** Null while let go: then {@link #json} holds it. */
        Aggregate aggregate;

        /** The aggregate's JSON while it has not changed since it was read or encoded; else null. */
        byte[] json;

        long timestamp;
        boolean changed;
    }

    private final int maxHeld;
    private final Map<String, Owned> owned = new HashMap<>();
    /** The decoded ones, least recently folded first. */
    private final LinkedHashMap<String, Owned> held = new LinkedHashMap<>(64, 0.75f, true);

    private int changed;

    Folds(int maxHeld) {
        if (maxHeld < 1) {
            throw new IllegalArgumentException("held must be at least 1, not " + maxHeld);
        }
        this.maxHeld = maxHeld;
    }

    /**
     * Takes a monitor up from its last state ({@link Aggregate#EMPTY} for a monitor with none yet).
     *
     * @param json      the state's JSON, which {@code aggregate} was read from (kept, so that an aggregate let go before it
     *                  changes is not encoded again), or null
     * @param timestamp the state's record timestamp, or {@link Long#MIN_VALUE} for none
     */
    void own(String monitor, Aggregate aggregate, byte[] json, long timestamp) {
        release(monitor);
        Owned o = new Owned();
        o.aggregate = aggregate;
        o.json = json;
        o.timestamp = timestamp;
        owned.put(monitor, o);
        hold(monitor, o);
    }

    /** Whether this loop folds the monitor's log now. */
    boolean owns(String monitor) {
        return owned.containsKey(monitor);
    }

    Set<String> monitors() {
        return java.util.Collections.unmodifiableSet(owned.keySet());
    }

    /** The seq the fold of a monitor has reached. */
    long lastSeq(String monitor) {
        Owned o = owned.get(monitor);
        if (o == null) {
            throw new IllegalArgumentException("not owned: " + monitor);
        }
        return decoded(monitor, o).lastSeq();
    }

    /**
     * Applies one record of a monitor's log (a seq at or below the aggregate's {@code last_seq} changes nothing).
     *
     * @return whether this was the first change since the last {@link #takeChanged}
     */
    boolean apply(String monitor, long seq, Draft record, long timestamp) {
        Owned o = owned.get(monitor);
        if (o == null) {
            throw new IllegalArgumentException("not owned: " + monitor);
        }
        Aggregate current = decoded(monitor, o);
        Aggregate next = current.apply(monitor, seq, record, timestamp);
        if (next == current) {
            return false;
        }
        o.aggregate = next;
        o.json = null;
        o.timestamp = Math.max(o.timestamp, timestamp);
        if (o.changed) {
            return false;
        }
        o.changed = true;
        return changed++ == 0;
    }

    /** How many owned aggregates changed since the last {@link #takeChanged}. */
    int changed() {
        return changed;
    }

    /** Every changed aggregate, encoded once; they are unchanged afterwards. */
    List<Write> takeChanged() {
        List<Write> out = new ArrayList<>(changed);
        if (changed == 0) {
            return out;
        }
        for (Map.Entry<String, Owned> e : owned.entrySet()) {
            Write w = take(e.getKey(), e.getValue());
            if (w != null) {
                out.add(w);
            }
        }
        return out;
    }

    /**
     * Gives a monitor up (its log was revoked or lost).
     *
     * @return its write if it changed since the last one, which the caller sends before another loop can take it up
     *     (or drops, for a log that was lost to another loop already)
     */
    Write release(String monitor) {
        Owned o = owned.remove(monitor);
        if (o == null) {
            return null;
        }
        held.remove(monitor);
        return take(monitor, o);
    }

    /** Gives every monitor up, without writes: a loop that starts again takes each up from its last state. */
    void clear() {
        owned.clear();
        held.clear();
        changed = 0;
    }

    private Write take(String monitor, Owned o) {
        if (!o.changed) {
            return null;
        }
        o.changed = false;
        changed--;
        return new Write(monitor, json(o), o.timestamp);
    }

    /** The aggregate's JSON, encoded only if it changed since it was last read or encoded. */
    private static byte[] json(Owned o) {
        if (o.json == null) {
            o.json = o.aggregate.toJson();
        }
        return o.json;
    }

    private Aggregate decoded(String monitor, Owned o) {
        if (o.aggregate == null) {
            o.aggregate = Aggregate.fromJson(o.json);
            hold(monitor, o);
        } else {
            held.get(monitor); // access order: the most recently folded last
        }
        return o.aggregate;
    }

    /** Keeps it decoded; past the bound, the least recently folded one is kept as its JSON instead. */
    private void hold(String monitor, Owned o) {
        held.put(monitor, o);
        Iterator<Map.Entry<String, Owned>> eldest = held.entrySet().iterator();
        while (held.size() > maxHeld && eldest.hasNext()) {
            Owned let = eldest.next().getValue();
            json(let);
            let.aggregate = null;
            eldest.remove();
        }
    }
}
