package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.protocol.Aggregate;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this gateway's tail has seen of one monitor's log: its last seq, the types it carried, its newest observations,
 * and the signal parked pulls wait on. The signal is replaced on every append, so a waiter that takes it after checking
 * {@link #lastSeq()} cannot miss an append. The log's fold is the projector's ({@code mp.state}); this tail only
 * brings a lagging fold up to the head ({@link #foldOnto}). The follower reads the log only while something of this
 * gateway needs it ({@link #want}, {@link #hold}) and lets it go once idle ({@link #release}).
 */
public final class MonitorLog implements io.monitorbackbone.gateway.service.Tables.Tail {
    private volatile long lastSeq;
    private final Set<String> seenTypes = ConcurrentHashMap.newKeySet();
    private volatile CompletableFuture<Void> nextAppend = new CompletableFuture<>();
    private final java.util.ArrayDeque<Tailed> tail = new java.util.ArrayDeque<>();
    /** The highest seq dropped from the tail: the tail holds every record after it. */
    private long evictedUpTo;

    private final int tailCapacity;
    private final Runnable startFollowing;

    private record Tailed(long seq, io.monitorbackbone.protocol.Draft draft, long appendedAt) {}

    /** Whether the follower reads this log (or has been asked to): only while something of this gateway needs it. */
    private boolean followed;
    /** Requests, parked pulls, streams and watches that need this log read right now. */
    private int holds;
    /** When it was last needed ({@code System.nanoTime()}): it is let go once idle for longer than the follow idle time. */
    private long lastUse;

    /** @param startFollowing asks the follower to read this log (it is not followed yet) */
    MonitorLog(int tailCapacity, Runnable startFollowing) {
        this.tailCapacity = tailCapacity;
        this.startFollowing = startFollowing;
    }

    /** Recent subjects and write ids, bounded: the durable published-subject index is the leases service's. */
    static final int RECENT = 4096;

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

    /**
     * Something of this gateway needs the log read: it is followed from now on, until it has been idle for the follow
     * idle time; the follower is asked to start when it was not followed.
     */
    void want() {
        boolean start;
        synchronized (this) {
            lastUse = System.nanoTime();
            start = !followed;
            followed = true;
        }
        if (start) {
            startFollowing.run();
        }
    }

    /** {@link #want}, and the log is not let go until the returned hold is closed. */
    @Override
    public io.monitorbackbone.gateway.service.Tables.Hold hold() {
        synchronized (this) {
            holds++;
        }
        want();
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (closed.compareAndSet(false, true)) {
                unhold();
            }
        };
    }

    /** Ends a {@link #hold}: the idle time starts over from here. */
    private synchronized void unhold() {
        holds--;
        lastUse = System.nanoTime();
    }

    /** Whether the follower reads this log, or has been asked to. */
    synchronized boolean followed() {
        return followed;
    }

    /**
     * Lets the log go if nothing has needed it for {@code idleNanos}; the follower then stops reading it. What it read
     * stays (last seq, types, recent subjects and write ids), but the tail is dropped: the next follow reads on from
     * wherever the log then ends, and a tail with a hole in it would serve a page that skips records.
     */
    synchronized boolean release(long now, long idleNanos) {
        if (!followed || holds > 0 || now - lastUse <= idleNanos) {
            return false;
        }
        followed = false;
        tail.clear();
        evictedUpTo = lastSeq;
        return true;
    }

    /** The follower starts reading this log at {@code seq}: nothing before it is in this tail. */
    synchronized void readsFrom(long seq) {
        if (tail.isEmpty() && lastSeq < seq) {
            evictedUpTo = Math.max(evictedUpTo, seq - 1);
        }
    }

    /**
     * @param appendedAt the record's timestamp: when the log appended it, as the projector's fold sees it
     * @param eventId    the record's {@code ce_id}, null when it has none
     */
    synchronized void apply(long seq, io.monitorbackbone.protocol.Draft draft, long appendedAt, String eventId) {
        if (seq <= lastSeq) {
            return;
        }
        lastSeq = seq;
        if (draft.subject() != null
                && draft.type() != null
                && !draft.type().startsWith(io.monitorbackbone.protocol.Vocabulary.PROTOCOL_TYPE_PREFIX)) {
            recentSubjects.put(draft.subject(), Boolean.TRUE);
        }
        if (eventId != null) {
            seqByEventId.put(eventId, seq);
        }
        if (tailCapacity > 0) {
            tail.addLast(new Tailed(seq, draft, appendedAt));
            if (tail.size() > tailCapacity) {
                evictedUpTo = tail.removeFirst().seq();
            }
        } else {
            evictedUpTo = seq;
        }
        String type = draft.type();
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
    synchronized List<io.monitorbackbone.gateway.service.Log.Entry> tail(long fromSeq, long toSeq) {
        if (fromSeq > toSeq) {
            return List.of();
        }
        if (tail.isEmpty()
                || tail.peekFirst().seq() > fromSeq
                || tail.peekLast().seq() < toSeq) {
            return null;
        }
        List<io.monitorbackbone.gateway.service.Log.Entry> out = new java.util.ArrayList<>();
        for (Tailed e : tail) {
            if (e.seq() > toSeq) {
                break;
            }
            if (e.seq() >= fromSeq) {
                out.add(new io.monitorbackbone.gateway.service.Log.Entry(e.seq(), e.draft()));
            }
        }
        return out;
    }

    /**
     * {@code base} (the projector's fold of this log, which may lag) brought up to {@code head} with the observations
     * this tail holds after it, folded exactly as the projector folds them; null when the tail no longer holds all of
     * them. Costs at most the tail's capacity, whatever the log's length.
     */
    public synchronized Aggregate foldOnto(String monitorId, Aggregate base, long head) {
        if (base.lastSeq() >= head) {
            return base;
        }
        if (evictedUpTo > base.lastSeq() || lastSeq < head) {
            return null;
        }
        Aggregate a = base;
        for (Tailed e : tail) {
            if (e.seq() > head) {
                break;
            }
            if (e.seq() > a.lastSeq()) {
                a = a.apply(monitorId, e.seq(), e.draft(), e.appendedAt());
            }
        }
        return a;
    }

    /** Whether a producer published this subject lately (recent records only). */
    public synchronized boolean publishedRecently(String subject) {
        return recentSubjects.containsKey(subject);
    }

    /**
     * This gateway has just had the subject's lease-subject mark acknowledged: a repeat of it need not be marked again,
     * whether or not the follower reads this log.
     */
    @Override
    public synchronized void published(String subject) {
        recentSubjects.put(subject, Boolean.TRUE);
    }

    /** The seq of the record written with this {@code ce_id}, when this tail has seen it lately. */
    public synchronized Long seqOf(String eventId) {
        return seqByEventId.get(eventId);
    }

    /**
     * The seq of the record written with this {@code ce_id}, waiting at most {@code timeout} for this tail to read it;
     * null if it has not by then. The tail reads committed records only, so a seq it answers is readable by any pull.
     */
    public Long awaitSeqOf(String eventId, java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            // The signal is taken before looking, so an append between the look and the wait still wakes the wait.
            CompletableFuture<Void> appended = nextAppend;
            Long seq = seqOf(eventId);
            long left = deadline - System.nanoTime();
            if (seq != null || left <= 0) {
                return seq;
            }
            try {
                appended.get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                return seqOf(eventId);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return seqOf(eventId);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    public long lastSeq() {
        return lastSeq;
    }

    /** Types in the records this gateway has read of the log (its newest ones; the projector's fold has the rest). */
    public List<String> seenTypes() {
        return List.copyOf(seenTypes);
    }

    /** Completes at the next append this gateway sees. */
    public CompletableFuture<Void> nextAppend() {
        return nextAppend;
    }
}
