package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.protocol.Aggregate;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this gateway's tail has seen of one monitor's log: the running aggregate, the types it carried, and the signal
 * parked pulls wait on. The signal is replaced on every append, so a waiter that takes it after checking
 * {@link #lastSeq()} cannot miss an append.
 */
public final class MonitorLog {
    private volatile Aggregate aggregate = Aggregate.EMPTY;
    private final Set<String> seenTypes = ConcurrentHashMap.newKeySet();
    private volatile CompletableFuture<Void> nextAppend = new CompletableFuture<>();
    private final java.util.ArrayDeque<LogReader.Entry> tail = new java.util.ArrayDeque<>();
    private final int tailCapacity;

    MonitorLog(int tailCapacity) {
        this.tailCapacity = tailCapacity;
    }

    /** Recent subjects and write ids, bounded: the durable published-subject index is the leases service's. */
    private static final int RECENT = 4096;
    private final java.util.Map<String, Boolean> recentSubjects = recent();
    private final java.util.Map<String, Long> seqByEventId = recent();

    private static <V> java.util.Map<String, V> recent() {
        return new java.util.LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(java.util.Map.Entry<String, V> eldest) {
                return size() > RECENT;
            }
        };
    }

    void apply(long seq, io.monitorbackbone.protocol.Draft draft, ObjectNode observation) {
        apply(seq, draft, observation, null);
    }

    synchronized void apply(long seq, io.monitorbackbone.protocol.Draft draft, ObjectNode observation, String eventId) {
        if (seq <= aggregate.lastSeq()) {
            return;
        }
        aggregate = aggregate.apply(seq, observation);
        if (draft.subject() != null && draft.type() != null
                && !draft.type().startsWith(io.monitorbackbone.protocol.Vocabulary.PROTOCOL_TYPE_PREFIX)) {
            recentSubjects.put(draft.subject(), Boolean.TRUE);
        }
        if (eventId != null) {
            seqByEventId.put(eventId, seq);
        }
        if (tailCapacity > 0) {
            tail.addLast(new LogReader.Entry(seq, draft));
            if (tail.size() > tailCapacity) {
                tail.removeFirst();
            }
        }
        String type = observation.path("type").asText(null);
        if (type != null) {
            seenTypes.add(type);
        }
        CompletableFuture<Void> fired = nextAppend;
        nextAppend = new CompletableFuture<>();
        fired.complete(null);
    }

    /**
     * The newest observations from {@code fromSeq} to {@code toSeq}, when this tail holds all of them (it holds a
     * contiguous run, the follower reading the partition in order); null when it does not.
     */
    synchronized List<LogReader.Entry> tail(long fromSeq, long toSeq) {
        if (fromSeq > toSeq) {
            return List.of();
        }
        if (tail.isEmpty() || tail.peekFirst().seq() > fromSeq || tail.peekLast().seq() < toSeq) {
            return null;
        }
        List<LogReader.Entry> out = new java.util.ArrayList<>();
        for (LogReader.Entry e : tail) {
            if (e.seq() > toSeq) {
                break;
            }
            if (e.seq() >= fromSeq) {
                out.add(e);
            }
        }
        return out;
    }

    /** Whether a producer published this subject lately (recent records only). */
    public synchronized boolean publishedRecently(String subject) {
        return recentSubjects.containsKey(subject);
    }

    /** The seq of the record written with this {@code ce_id}, when this tail has seen it lately. */
    public synchronized Long seqOf(String eventId) {
        return seqByEventId.get(eventId);
    }

    public Aggregate aggregate() {
        return aggregate;
    }

    public long lastSeq() {
        return aggregate.lastSeq();
    }

    public List<String> seenTypes() {
        return List.copyOf(seenTypes);
    }

    /** Completes at the next append this gateway sees. */
    public CompletableFuture<Void> nextAppend() {
        return nextAppend;
    }
}
