package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Each recently reported subject's current claim and who agrees with it within the monitor's horizon. A report with
 * other content starts a new claim; a {@code falsified} report withdraws the claim; a report older than the horizon
 * (measured back from the newest report on the subject) no longer agrees. The last {@link #MAX_SUBJECTS} subjects are
 * kept, least recently reported dropped first, each with its {@link #MAX_REPORTERS} most recent agreeing actors.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Corroboration(List<Subject> subjects) {
    public static final int MAX_SUBJECTS = 128;
    public static final int MAX_REPORTERS = 4;
    public static final Corroboration NONE = new Corroboration(List.of());

    /** How far back a report still agrees, per horizon. {@code event} (and an unknown horizon) has no window. */
    public static final Map<String, Long> WINDOW_SECONDS =
            Map.of("minute", 60L, "hour", 3_600L, "day", 86_400L, "week", 604_800L, "month", 2_592_000L);

    public Corroboration {
        subjects = subjects == null ? List.of() : FrozenList.copyOf(subjects);
    }

    /**
     * @param key       {@link Subjects#key} of the subject
     * @param digest    {@link ContentDigest} of the current claim; null once withdrawn
     * @param reporters the actors agreeing with it, least recent first
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Subject(String key, String digest, List<Reporter> reporters) {
        public Subject {
            reporters = reporters == null ? List.of() : List.copyOf(reporters);
        }

        public boolean corroborated() {
            return reporters.size() >= 2;
        }

        /** At least two of the agreeing actors are among {@code independent}. */
        public boolean independentlyCorroborated(Actors actors, Set<String> independent) {
            return reporters.stream()
                            .map(r -> actors.nameAt(r.actor()))
                            .filter(n -> n != null && independent.contains(n))
                            .count()
                    >= 2;
        }
    }

    /** An actor index and the epoch second of its latest agreeing report: serialised as {@code [actor, second]}. */
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({"actor", "second"})
    public record Reporter(int actor, long second) {}

    public Corroboration apply(Row row, int actor) {
        if (row.protocolRow() || !row.hasOutsideActor() || row.subject() == null || row.timeEpochSecond() == null) {
            return this;
        }
        String key = Subjects.key(row.subject());
        int at = indexOf(key);
        Subject current = at < 0 ? null : subjects.get(at);
        Subject next;
        if (row.falsified()) {
            if (current == null) {
                return this;
            }
            next = new Subject(key, null, List.of());
        } else {
            String digest = ContentDigest.of(row.type(), row.data());
            long second = row.timeEpochSecond();
            if (current == null || !digest.equals(current.digest())) {
                next = new Subject(key, digest, List.of(new Reporter(actor, second)));
            } else {
                next = new Subject(key, digest, agreeing(current.reporters(), actor, second, row.horizon()));
            }
        }
        return new Corroboration(FrozenList.movedToEnd(subjects, at, next, MAX_SUBJECTS));
    }

    private static List<Reporter> agreeing(List<Reporter> before, int actor, long second, String horizon) {
        long latest = second;
        long previous = Long.MIN_VALUE;
        for (Reporter r : before) {
            latest = Math.max(latest, r.second());
            if (r.actor() == actor) {
                previous = r.second();
            }
        }
        Long window = horizon == null ? null : WINDOW_SECONDS.get(horizon);
        List<Reporter> out = new ArrayList<>();
        for (Reporter r : before) {
            if (r.actor() != actor && (window == null || r.second() >= latest - window)) {
                out.add(r);
            }
        }
        Reporter self = new Reporter(actor, Math.max(previous, second));
        if (window == null || self.second() >= latest - window) {
            out.add(self);
        }
        while (out.size() > MAX_REPORTERS) {
            out.remove(0);
        }
        return out;
    }

    private int indexOf(String key) {
        for (int i = subjects.size() - 1; i >= 0; i--) {
            if (subjects.get(i).key().equals(key)) {
                return i;
            }
        }
        return -1;
    }

    /** Share of tracked subjects whose current claim has two or more agreeing actors; null with no subject. */
    public Double value() {
        if (subjects.isEmpty()) {
            return null;
        }
        return (double) subjects.stream().filter(Subject::corroborated).count() / subjects.size();
    }
}
