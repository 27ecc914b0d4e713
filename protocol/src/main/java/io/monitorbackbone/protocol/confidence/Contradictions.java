package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.ArrayList;
import java.util.List;

/**
 * Open contradictions, matched by subject: a type ending {@code .contradiction} opens its subject, one ending
 * {@code .contradiction_resolved} closes that subject's. Opening an open subject again changes nothing, so the count
 * is of subjects in dispute, not of rows.
 *
 * @param open      the open subjects' keys ({@link Subjects#key}), at most {@link #MAX}
 * @param untracked subjects opened while {@code open} was full; a resolution of a subject not held closes one of them
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Contradictions(List<String> open, long untracked) {
    public static final int MAX = 256;
    public static final Contradictions NONE = new Contradictions(List.of(), 0);

    public Contradictions {
        open = open == null ? List.of() : List.copyOf(open);
    }

    public Contradictions apply(Row row) {
        if (row.type() == null) {
            return this;
        }
        String key = Subjects.key(row.subject());
        if (row.type().endsWith(".contradiction")) {
            if (open.contains(key)) {
                return this;
            }
            if (open.size() >= MAX) {
                return new Contradictions(open, untracked + 1);
            }
            List<String> next = new ArrayList<>(open);
            next.add(key);
            return new Contradictions(next, untracked);
        }
        if (row.type().endsWith(".contradiction_resolved")) {
            if (open.contains(key)) {
                List<String> next = new ArrayList<>(open);
                next.remove(key);
                return new Contradictions(next, untracked);
            }
            return untracked > 0 ? new Contradictions(open, untracked - 1) : this;
        }
        return this;
    }

    public long count() {
        return open.size() + untracked;
    }
}
