package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Per actor, how many claims it made and how many of them a {@code falsified} correction later superseded. A
 * correction names the seq it supersedes, so the fold remembers who made each of the last {@link #RECENT} claims;
 * a correction of an older claim still counts against the monitor, as {@code unattributed}, but against no actor.
 *
 * @param tallies          index-aligned with {@link Actors#names()}; shorter when the newest actors have no claims yet
 * @param pooled           the claims of actors past {@link Actors#MAX}
 * @param recent           the last {@link #RECENT} claims, oldest first, seqs increasing
 * @param forgottenThrough the highest seq dropped from {@code recent}; 0 while nothing was dropped
 * @param olderTargets     the last {@link #OLDER_TARGETS} superseded seqs at or below {@code forgottenThrough}, so a
 *                         repeated correction of one old claim counts once
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record TrackRecord(
        List<Tally> tallies,
        Tally pooled,
        List<Claim> recent,
        long forgottenThrough,
        List<Long> olderTargets,
        long unattributed) {
    public static final int RECENT = 256;
    public static final int OLDER_TARGETS = 64;
    public static final TrackRecord NONE = new TrackRecord(List.of(), Tally.ZERO, List.of(), 0, List.of(), 0);

    public TrackRecord {
        tallies = tallies == null ? List.of() : FrozenList.copyOf(tallies);
        pooled = pooled == null ? Tally.ZERO : pooled;
        recent = recent == null ? List.of() : FrozenList.copyOf(recent);
        olderTargets = olderTargets == null ? List.of() : List.copyOf(olderTargets);
    }

    /** Claims and falsifications of one actor: serialised as {@code [claims, falsified]}. */
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({"claims", "falsified"})
    public record Tally(long claims, long falsified) {
        public static final Tally ZERO = new Tally(0, 0);
    }

    /** One remembered claim, serialised as {@code [seq, actor, falsified]}. */
    @JsonFormat(shape = JsonFormat.Shape.ARRAY)
    @JsonPropertyOrder({"seq", "actor", "falsified"})
    public record Claim(long seq, int actor, boolean falsified) {}

    /**
     * @param actor    the row's actor index in the aggregate's {@link Actors}
     * @param firstSeq the first seq the fold covers: a correction of anything before it supersedes no claim we counted
     */
    public TrackRecord apply(Row row, int actor, long firstSeq) {
        if (row.claim()) {
            return withClaim(row.seq(), actor);
        }
        if (row.falsified() && !row.protocolRow()) {
            Long target = supersededSeq(row);
            if (target != null && target >= firstSeq && target < row.seq()) {
                return withFalsified(target);
            }
        }
        return this;
    }

    private TrackRecord withClaim(long seq, int actor) {
        long forgotten =
                recent.size() >= RECENT ? recent.get(recent.size() - RECENT).seq() : forgottenThrough;
        List<Claim> nextRecent = FrozenList.movedToEnd(recent, -1, new Claim(seq, actor, false), RECENT);
        return new TrackRecord(
                bump(actor, 1, 0),
                actor < 0 ? plus(pooled, 1, 0) : pooled,
                nextRecent,
                forgotten,
                olderTargets,
                unattributed);
    }

    private TrackRecord withFalsified(long target) {
        if (target <= forgottenThrough) {
            if (olderTargets.contains(target)) {
                return this;
            }
            List<Long> nextTargets = new ArrayList<>(olderTargets);
            nextTargets.add(target);
            if (nextTargets.size() > OLDER_TARGETS) {
                nextTargets.remove(0);
            }
            return new TrackRecord(tallies, pooled, recent, forgottenThrough, nextTargets, unattributed + 1);
        }
        int i = indexOfSeq(target);
        if (i < 0 || recent.get(i).falsified()) {
            // Not a claim (a protocol row, a system row, a correction) or already counted: nothing to supersede.
            return this;
        }
        Claim claim = recent.get(i);
        List<Claim> nextRecent = FrozenList.with(recent, i, new Claim(claim.seq(), claim.actor(), true), null);
        return new TrackRecord(
                bump(claim.actor(), 0, 1),
                claim.actor() < 0 ? plus(pooled, 0, 1) : pooled,
                nextRecent,
                forgottenThrough,
                olderTargets,
                unattributed);
    }

    private int indexOfSeq(long seq) {
        int lo = 0;
        int hi = recent.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long s = recent.get(mid).seq();
            if (s < seq) {
                lo = mid + 1;
            } else if (s > seq) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private List<Tally> bump(int actor, long claims, long falsified) {
        if (actor < 0) {
            return tallies;
        }
        Tally current = actor < tallies.size() ? tallies.get(actor) : Tally.ZERO;
        return FrozenList.with(tallies, actor, plus(current, claims, falsified), Tally.ZERO);
    }

    private static Tally plus(Tally t, long claims, long falsified) {
        return new Tally(t.claims() + claims, t.falsified() + falsified);
    }

    /** The seq a row supersedes, when it names an observation of its own monitor by a decimal id. */
    static Long supersededSeq(Row row) {
        ObjectNode provenance = row.data().path("provenance").isObject()
                ? (ObjectNode) row.data().get("provenance")
                : null;
        if (provenance == null || !provenance.path("supersedes").isObject()) {
            return null;
        }
        String source = provenance.path("supersedes").path("source").asText(null);
        String id = provenance.path("supersedes").path("id").asText(null);
        if (source == null || id == null || !source.equals(row.source())) {
            return null;
        }
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    public long claims() {
        long n = pooled.claims();
        for (Tally t : tallies) {
            n += t.claims();
        }
        return n;
    }

    /** Falsified claims, the unattributed ones included. */
    public long falsified() {
        long f = pooled.falsified() + unattributed;
        for (Tally t : tallies) {
            f += t.falsified();
        }
        return f;
    }

    /** 1 − falsified / claims, within [0, 1]; null before the first claim. */
    public Double value() {
        long n = claims();
        if (n == 0) {
            return null;
        }
        return Math.max(0.0, 1.0 - (double) falsified() / n);
    }
}
