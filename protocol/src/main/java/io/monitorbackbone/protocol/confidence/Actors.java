package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The non-system actors the aggregate knows by index, in order of first mention. An actor's position is its index
 * everywhere else in the aggregate, so names are never removed or reordered. A name gets an index when it appears in a
 * row or when the owner declares it independent; only the first makes it a distinct actor of the log ({@code seen}).
 * Past {@link #MAX} names, actors seen in rows are pooled: {@code overflow} says some exist, and they all share index
 * {@link #POOLED}.
 *
 * @param seen bit i is set once {@code names[i]} appeared as the actor of a row
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Actors(List<String> names, long seen, boolean overflow) {
    public static final int MAX = 32;
    public static final int POOLED = -1;
    public static final Actors NONE = new Actors(List.of(), 0, false);

    public Actors {
        names = names == null ? List.of() : List.copyOf(names);
    }

    /** The actor of a row: indexed if there is room, and counted as seen. {@code system:} actors are the server's. */
    public Actors note(String actor) {
        if (actor == null || actor.startsWith("system:")) {
            return this;
        }
        Actors a = register(actor);
        int i = a.names.indexOf(actor);
        if (i < 0) {
            return overflow ? this : new Actors(names, seen, true);
        }
        long bit = 1L << i;
        return (a.seen & bit) != 0 ? a : new Actors(a.names, a.seen | bit, a.overflow);
    }

    /** Indexes actors without counting them as seen; past the bound they are left out. */
    public Actors registerAll(Collection<String> actors) {
        Actors a = this;
        for (String actor : actors) {
            a = a.register(actor);
        }
        return a;
    }

    private Actors register(String actor) {
        if (actor.startsWith("system:") || names.contains(actor) || names.size() >= MAX) {
            return this;
        }
        List<String> next = new ArrayList<>(names);
        next.add(actor);
        return new Actors(next, seen, overflow);
    }

    /** The actor's index, {@link #POOLED} for an actor past the bound (or none at all). */
    public int indexOf(String actor) {
        int i = actor == null ? -1 : names.indexOf(actor);
        return i >= 0 ? i : POOLED;
    }

    public String nameAt(int index) {
        return index >= 0 && index < names.size() ? names.get(index) : null;
    }

    /** Distinct actors seen in rows: exact up to {@link #MAX}; past it, at least {@code MAX + 1}. */
    public int distinct() {
        return Long.bitCount(seen) + (overflow ? 1 : 0);
    }
}
