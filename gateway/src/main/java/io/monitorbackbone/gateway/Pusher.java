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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * Runs webhook push in the one gateway the sweeper's election chose (docs/adr/0016-webhook-push.md): a timer looks at
 * every push subscription and hands each one that has something to deliver, and whose backoff is over, to a worker;
 * one run per subscription at a time, so each subscription's observations go out in order. When this gateway stops
 * being the one, the runs in flight finish (each ends after its current delivery) before the election may hand the
 * duty on, so two gateways never push at once.
 */
public final class Pusher implements AutoCloseable {
    private static final Logger LOGGER = Logger.getLogger(Pusher.class);
    private static final Duration TICK = Duration.ofMillis(100);
    private static final int WORKERS = 4;

    private final Tables tables;
    private final PushService push;
    private final HttpClient client;
    private final Duration timeout;
    private final ScheduledExecutorService timer;
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
        this.tables = tables;
        this.push = push;
        this.timeout = push.settings().timeout();
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        AtomicInteger n = new AtomicInteger();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "mp-pusher"));
        this.workers = Executors.newFixedThreadPool(WORKERS, r -> daemon(r, "mp-push-" + n.incrementAndGet()));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public void start() {
        timer.scheduleWithFixedDelay(this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
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

    private void tick() {
        if (!leader) {
            return;
        }
        try {
            Set<String> pushing = new HashSet<>();
            // The pushing subscriptions only (the tables keep them apart): a tick costs nothing per monitor, and a
            // server whose subscriptions all pull spends nothing here ten times a second.
            Map<String, Long> lastSeqs = new HashMap<>();
            for (Subscription s : tables.pushingSubscriptions()) {
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
        } catch (RuntimeException e) {
            LOGGER.errorf(e, "webhook push: looking for work failed; trying again");
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
        timer.shutdownNow();
        workers.shutdownNow();
    }
}
