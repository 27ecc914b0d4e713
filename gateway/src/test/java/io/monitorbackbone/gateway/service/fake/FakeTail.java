package io.monitorbackbone.gateway.service.fake;

import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** {@link Tables.Tail} in memory, fed by {@link FakeLog} on every append as the follower feeds the real one. */
public final class FakeTail implements Tables.Tail {
    private long lastSeq;
    private final Set<String> types = new LinkedHashSet<>();
    private final Set<String> subjects = new LinkedHashSet<>();
    private final Map<String, Long> seqByEventId = new HashMap<>();
    private final List<Draft> drafts = new ArrayList<>();
    private volatile CompletableFuture<Void> nextAppend = new CompletableFuture<>();

    void appended(long seq, Draft draft) {
        CompletableFuture<Void> fired;
        synchronized (this) {
            lastSeq = seq;
            drafts.add(draft);
            if (draft.type() != null) {
                types.add(draft.type());
            }
            if (draft.subject() != null
                    && draft.type() != null
                    && !draft.type().startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX)) {
                subjects.add(draft.subject());
            }
            fired = nextAppend;
            nextAppend = new CompletableFuture<>();
        }
        fired.complete(null);
    }

    /** The row with this {@code ce_id} has been read at {@code seq} (the leases service's rows carry one). */
    public synchronized void sawEvent(String eventId, long seq) {
        seqByEventId.put(eventId, seq);
    }

    @Override
    public synchronized long lastSeq() {
        return lastSeq;
    }

    @Override
    public CompletableFuture<Void> nextAppend() {
        return nextAppend;
    }

    @Override
    public synchronized List<String> seenTypes() {
        return List.copyOf(types);
    }

    @Override
    public synchronized boolean publishedRecently(String subject) {
        return subjects.contains(subject);
    }

    @Override
    public synchronized Long awaitSeqOf(String eventId, Duration timeout) {
        return seqByEventId.get(eventId);
    }

    @Override
    public synchronized Aggregate foldOnto(String monitorId, Aggregate base, long head) {
        Aggregate a = base;
        for (long seq = base.lastSeq() + 1; seq <= Math.min(head, drafts.size()); seq++) {
            a = a.apply(monitorId, seq, drafts.get((int) seq - 1), 0L);
        }
        return a;
    }
}
