package io.monitorbackbone.gateway.service.fake;

import io.monitorbackbone.gateway.service.LogAdmin;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link LogAdmin} in memory: which logs exist and with what retention; a create's definition commits into the fake
 * tables' written rows with the outcome the test chose (committed unless told otherwise).
 */
public final class FakeLogAdmin implements LogAdmin {
    private final FakeTables tables;
    private final FakeLog log;
    private final Map<String, Long> logs = new HashMap<>();
    private final List<String> colliding = new ArrayList<>();
    private final List<String> creates = new ArrayList<>();
    private Fence.Outcome outcome = Fence.Outcome.COMMITTED;
    private final java.util.ArrayDeque<Fence.Outcome> queued = new java.util.ArrayDeque<>();

    public FakeLogAdmin(FakeTables tables, FakeLog log) {
        this.tables = tables;
        this.log = log;
    }

    @Override
    public synchronized Created createLog(String monitorId, Long retentionSeconds) {
        if (colliding.contains(monitorId)) {
            return Created.COLLIDING;
        }
        if (logs.containsKey(monitorId)) {
            return Created.EXISTING;
        }
        logs.put(monitorId, retentionSeconds);
        return Created.NEW;
    }

    @Override
    public synchronized void setRetention(String monitorId, Long retentionSeconds) {
        logs.put(monitorId, retentionSeconds);
    }

    @Override
    public void deleteBefore(Map<String, Long> offsetByMonitor) {
        offsetByMonitor.forEach(log::dropBefore);
    }

    @Override
    public synchronized Fence openCreate(String monitorId) {
        creates.add(monitorId);
        Fence.Outcome chosen = queued.isEmpty() ? outcome : queued.poll();
        return new Fence() {
            @Override
            public Outcome commit(String table, String key, Object value) {
                if (chosen == Outcome.COMMITTED) {
                    tables.put(table, key, value);
                }
                return chosen;
            }

            @Override
            public Exception failure() {
                return chosen == Outcome.COMMITTED ? null : new IllegalStateException("fenced by the test");
            }

            @Override
            public void close() {}
        };
    }

    /** Kafka will refuse this id's log for colliding with another's. */
    public synchronized void collides(String monitorId) {
        colliding.add(monitorId);
    }

    /** What the commits of the next fences opened come to, one each, before {@link #nextCommit}'s. */
    public synchronized void nextCommits(Fence.Outcome... next) {
        queued.addAll(List.of(next));
    }

    /** The ids of the fences opened so far, in order. */
    public synchronized List<String> fencesOpened() {
        return List.copyOf(creates);
    }

    /** What the next create's commit comes to. */
    public synchronized void nextCommit(Fence.Outcome next) {
        outcome = next;
    }

    public synchronized boolean exists(String monitorId) {
        return logs.containsKey(monitorId);
    }

    public synchronized Long retention(String monitorId) {
        return logs.get(monitorId);
    }
}
