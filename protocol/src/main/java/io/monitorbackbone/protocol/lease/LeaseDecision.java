package io.monitorbackbone.protocol.lease;

import io.monitorbackbone.protocol.Draft;
import java.util.List;

/**
 * What one lease request or one expiry sweep decided.
 *
 * @param reply   the answer to send back; null for the sweep, which answers nobody
 * @param state   the state to keep afterwards: the one given when {@code changed} is false, so null for a refusal
 *                on a key that has no state yet
 * @param rows    the {@code ai.mentu.monitor.lease} observations to append to the monitor's log, in order; empty for
 *                refusals and repeats
 */
public record LeaseDecision(LeaseReply reply, LeaseState state, boolean changed, List<Row> rows) {

    /** @param eventId the {@code ce_id} to write the row with; null when any fresh unique id will do */
    public record Row(String eventId, Draft draft) {}

    public LeaseDecision {
        rows = List.copyOf(rows);
    }

    public static LeaseDecision unchanged(LeaseState state) {
        return new LeaseDecision(null, state, false, List.of());
    }
}
