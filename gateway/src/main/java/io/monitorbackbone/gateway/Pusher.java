package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.service.PushService;
import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Subscription;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jboss.logging.Logger;

/**
 * Runs webhook push in the one gateway the sweeper's election chose (docs/adr/0016-webhook-push.md): a timer looks at
 * every push subscription and hands each one that has something to deliver, and whose backoff is over, to a worker;
 * one run per subscription at a time, so each subscription's observations go out in order. When this gateway stops
 * being the one, the runs in flight finish (each ends after its current delivery) before the election may hand the
 * duty on, so two gateways never push at once. The timer looks every {@link #TICK} while this gateway pushes and a
 * subscription does; otherwise it waits for a pushing subscription or the duty to arrive ({@link #wake}), looking every
 * {@link #IDLE_TICK} in case, so a server with no pushing subscription does not wake ten times a second for nothing.
 */
public final class Pusher implements AutoCloseable {
    private static final Logger LOGGER = Logger.getLogger(Pusher.class);
    private static final Duration TICK = Duration.ofMillis(100);
    /** How long the timer waits, while there is no push to look at, for a {@link #wake} that did not come. */
    static final Duration IDLE_TICK = Duration.ofSeconds(5);

    private static final int WORKERS = 4;

    private final Tables tables;
    private final PushService push;
    private final HttpClient client;
    private final Duration timeout;
    private final Duration idleTick;
    private final Thread timer;
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition woken = wakeLock.newCondition();
    /** Set by {@link #wake}, cleared by the timer once it looked: a wake while it looks is not lost. */
    private boolean signalled;

    private volatile boolean closed;
    private final ExecutorService workers;
    private final Map<String, Slot> slots = new ConcurrentHashMap<>();
    private final Object drained = new Object();
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean leader;

    /** A lane, whether a run holds it, and when the next run is due. */
    private static final class Slot {
        final PushService.Lane lane;
        volatile boolean busy;
        volatile long dueNanos;

        Slot(String subscription) {
            this.lane = new PushService.Lane(subscription);
            this.dueNanos = System.nanoTime();
        }
    }

    public Pusher(Tables tables, PushService push) {
        this(tables, push, IDLE_TICK);
    }

    /** @param idleTick how long the timer waits for a {@link #wake} while there is no push to look at */
    Pusher(Tables tables, PushService push, Duration idleTick) {
        this.idleTick = idleTick;
        this.tables = tables;
        this.push = push;
        this.timeout = push.settings().timeout();
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        AtomicInteger n = new AtomicInteger();
        this.timer = daemon(this::loop, "mp-pusher");
        this.workers = Executors.newFixedThreadPool(WORKERS, r -> daemon(r, "mp-push-" + n.incrementAndGet()));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public void start() {
        tables.onPushing(this::wake);
        timer.start();
    }

    /** A pushing subscription was applied or the duty arrived: the timer looks now instead of after its wait. */
    void wake() {
        wakeLock.lock();
        try {
            signalled = true;
            woken.signal();
        } finally {
            wakeLock.unlock();
        }
    }

    private void loop() {
        while (!closed) {
            boolean pushes = tick();
            long nanos = (pushes ? TICK : idleTick).toNanos();
            wakeLock.lock();
            try {
                while (!signalled && !closed && nanos > 0) {
                    nanos = woken.awaitNanos(nanos);
                }
                signalled = false;
            } catch (InterruptedException e) {
                return; // closed
            } finally {
                wakeLock.unlock();
            }
        }
    }

    /**
     * Called by the election: true when this gateway holds the duty, false when it lost it. Losing it returns only once
     * the runs in flight have ended (bounded by a delivery's timeout), so the next holder starts after them.
     */
    public void lead(boolean lead) {
        if (lead == leader) {
            return;
        }
        leader = lead;
        if (lead) {
            LOGGER.info("this gateway runs the webhook push");
            wake();
            return;
        }
        long deadline = System.nanoTime() + timeout.plusSeconds(5).toNanos();
        synchronized (drained) {
            while (running.get() > 0 && System.nanoTime() < deadline) {
                try {
                    drained.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        // Attempt counts belong to one term: the next holder starts each observation's count afresh.
        slots.clear();
        LOGGER.info("this gateway no longer runs the webhook push");
    }

    /** One look at the push subscriptions; true when this gateway pushes and there is a subscription to push. */
    private boolean tick() {
        if (!leader) {
            return false;
        }
        try {
            Set<String> pushing = new HashSet<>();
            // The pushing subscriptions only (the tables keep them apart): a tick costs nothing per monitor, and a
            // server whose subscriptions all pull spends nothing here ten times a second.
            Map<String, Long> lastSeqs = new HashMap<>();
            List<Subscription> subscriptions = tables.pushingSubscriptions();
            for (Subscription s : subscriptions) {
                if (tables.monitor(s.monitor()) == null) {
                    continue;
                }
                pushing.add(s.id());
                // Asking for the tail makes this gateway follow the log (ADR 0003): only a monitor with a pushing
                // subscription is asked, so the elected gateway does not follow every log; asked at each tick, busy
                // or not, so the log stays followed while the subscription pushes.
                long last = lastSeqs.computeIfAbsent(
                        s.monitor(), m -> tables.tail(m).lastSeq());
                Slot slot = slots.computeIfAbsent(s.id(), Slot::new);
                if (slot.busy || System.nanoTime() - slot.dueNanos < 0) {
                    continue;
                }
                Cursor cursor = tables.cursor(s.id());
                // Nothing appended past the cursor as far as this gateway's follower has read: nothing to do.
                if (cursor == null || slot.lane.attempts() == 0 && last > 0 && last < cursor.cursor()) {
                    continue;
                }
                slot.busy = true;
                running.incrementAndGet();
                workers.execute(() -> run(slot));
            }
            slots.keySet().retainAll(pushing);
            // One whose monitor this gateway has not read yet counts: no wake comes when the monitor does.
            return !subscriptions.isEmpty();
        } catch (RuntimeException e) {
            LOGGER.errorf(e, "webhook push: looking for work failed; trying again");
            return true;
        }
    }

    private void run(Slot slot) {
        Duration next;
        try {
            next = push.run(slot.lane, this::send, () -> leader);
        } catch (RuntimeException e) {
            LOGGER.warnf(
                    "webhook push of subscription %s failed (%s); trying again in 1 s",
                    slot.lane.subscription(), e.getClass().getSimpleName());
            next = Duration.ofSeconds(1);
        }
        slot.dueNanos = System.nanoTime() + (next == null ? 0 : next.toNanos());
        slot.busy = false;
        if (running.decrementAndGet() == 0) {
            synchronized (drained) {
                drained.notifyAll();
            }
        }
    }

    private PushService.Answer send(URI sink, Map<String, String> headers, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(sink)
                .timeout(timeout)
                .header("User-Agent", "monitor-backbone")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        try {
            HttpResponse<Void> response = client.send(request.build(), HttpResponse.BodyHandlers.discarding());
            return new PushService.Answer(response.statusCode(), null);
        } catch (IOException e) {
            return new PushService.Answer(-1, e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PushService.Answer(-1, "interrupted");
        }
    }

    @Override
    public void close() {
        lead(false);
        closed = true;
        timer.interrupt();
        workers.shutdownNow();
    }
}
