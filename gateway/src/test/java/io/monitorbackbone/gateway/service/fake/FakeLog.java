package io.monitorbackbone.gateway.service.fake;

import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Log} in memory: each monitor's records in order, seq = position (no transaction markers), a retention floor
 * moved by {@link #dropBefore}. Every append is also read by the tables' tail at once, as this gateway's follower
 * reads its own acknowledged writes.
 */
public final class FakeLog implements Log {
    private final FakeTables tables;
    private final Map<String, List<Draft>> logs = new HashMap<>();
    private final Map<String, Long> floors = new HashMap<>();

    public FakeLog(FakeTables tables) {
        this.tables = tables;
    }

    @Override
    public java.util.concurrent.CompletableFuture<Long> appendAsync(String monitorId, Draft draft) {
        try {
            return java.util.concurrent.CompletableFuture.completedFuture(append(monitorId, draft));
        } catch (RuntimeException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public long append(String monitorId, Draft draft) {
        long seq;
        synchronized (this) {
            List<Draft> log = logs.computeIfAbsent(monitorId, id -> new ArrayList<>());
            log.add(draft);
            seq = log.size();
        }
        tables.tail(monitorId).appended(seq, draft);
        return seq;
    }

    @Override
    public synchronized Bounds bounds(String monitorId) {
        long head = logs.getOrDefault(monitorId, List.of()).size();
        return new Bounds(head, floors.getOrDefault(monitorId, 1L), head);
    }

    @Override
    public synchronized Map<String, Bounds> bounds(Collection<String> monitorIds) {
        Map<String, Bounds> out = new LinkedHashMap<>();
        monitorIds.forEach(id -> out.put(id, bounds(id)));
        return out;
    }

    /** The fake's record timestamp is the draft's {@code time} (a row's is the clock's now when it was made). */
    @Override
    public synchronized Stamped firstAtOrAfter(String monitorId, java.time.Instant time) {
        List<Draft> log = logs.getOrDefault(monitorId, List.of());
        for (long seq = bounds(monitorId).floor(); seq <= log.size(); seq++) {
            java.time.Instant t = io.monitorbackbone.protocol.Times.parseOrNull(
                    log.get((int) seq - 1).time());
            if (t != null && !t.isBefore(time)) {
                return new Stamped(seq, t);
            }
        }
        return null;
    }

    @Override
    public synchronized Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count) {
        List<Draft> log = logs.getOrDefault(monitorId, List.of());
        Bounds b = bounds(monitorId);
        List<Entry> entries = new ArrayList<>();
        long next = b.head() + 1;
        long counted = 0;
        for (long seq = Math.max(fromSeq, b.floor()); seq <= b.head(); seq++) {
            Draft d = log.get((int) seq - 1);
            if (!filter.passesEverything() && !filter.matches(d.served(monitorId, seq, false))) {
                continue;
            }
            counted++;
            if (entries.size() < limit) {
                entries.add(new Entry(seq, d));
                if (entries.size() == limit) {
                    next = seq + 1;
                }
            }
        }
        return new Page(entries, next, b, count ? counted : 0, false);
    }

    @Override
    public synchronized Aggregate foldFrom(String monitorId, Aggregate base, long head, int maxRecords) {
        List<Draft> log = logs.getOrDefault(monitorId, List.of());
        Aggregate a = base;
        for (long seq = base.lastSeq() + 1; seq <= Math.min(head, log.size()); seq++) {
            a = a.apply(monitorId, seq, log.get((int) seq - 1), 0L);
        }
        return a;
    }

    /** Every record of the monitor's log, oldest first (seq = index + 1), floor or not. */
    public synchronized List<Draft> records(String monitorId) {
        return List.copyOf(logs.getOrDefault(monitorId, List.of()));
    }

    /** The record at {@code seq}. */
    public synchronized Draft at(String monitorId, long seq) {
        return logs.get(monitorId).get((int) seq - 1);
    }

    /** Retention (or a compaction) dropped every offset below {@code offset}: the floor is its seq. */
    public synchronized void dropBefore(String monitorId, long offset) {
        floors.merge(monitorId, offset + 1, Math::max);
    }
}
