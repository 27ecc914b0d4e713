package io.monitorbackbone.gateway.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.monitorbackbone.protocol.ProtocolException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The protocol's own meters, recorded by the services where the work is. Every label is from a small fixed set
 * (an outcome, a lease result's error code): never a monitor, subscription or subject. docs/operations.md lists them.
 */
@Singleton
public class Metrics {
    /** What a publish came to: {@code accepted}, {@code rejected} (a rejected row recorded) or {@code failed}. */
    public static final String ACCEPTED = "accepted";

    public static final String REJECTED = "rejected";
    public static final String FAILED = "failed";

    private final MeterRegistry registry;
    private final Counter acks;
    private final Timer pulls;
    /**
     * The publish meters by outcome, registered once: looked up per publish, each builder and registration (an id, its
     * tags, the registry's map and filters) was about a percent of a publishing server's CPU in a profile.
     */
    private final Map<String, Counter> publishCounters;

    private final Map<String, Timer> publishTimers;

    @Inject
    public Metrics(MeterRegistry registry) {
        this.registry = registry;
        this.acks = Counter.builder("mp.ack")
                .description("Acks that were answered (a cursor moved or stayed)")
                .register(registry);
        this.pulls = timer("mp.pull.duration", "Pulls, from the request to the page, parked time included")
                .register(registry);
        // Present at 0 from the start, so a rate over them is defined before the first publish.
        Map<String, Counter> counters = new HashMap<>();
        Map<String, Timer> timers = new HashMap<>();
        for (String outcome : new String[] {ACCEPTED, REJECTED, FAILED}) {
            counters.put(outcome, publishes(outcome));
            timers.put(outcome, publishTimer(outcome));
        }
        this.publishCounters = Map.copyOf(counters);
        this.publishTimers = Map.copyOf(timers);
        for (String outcome : PUSH_OUTCOMES) {
            pushes(outcome);
        }
    }

    /** Meters kept in memory only, for the services' unit tests. */
    public static Metrics none() {
        return new Metrics(new SimpleMeterRegistry());
    }

    public long start() {
        return System.nanoTime();
    }

    /** A publish (or a too-large body's refusal) ended: with its reply, or with {@code failure}. */
    public void published(long startNanos, Throwable failure) {
        String outcome = outcomeOf(failure);
        publishCounters.get(outcome).increment();
        publishTimers.get(outcome).record(Duration.ofNanos(System.nanoTime() - startNanos));
    }

    public void pulled(long startNanos) {
        pulls.record(Duration.ofNanos(System.nanoTime() - startNanos));
    }

    public void acked() {
        acks.increment();
    }

    /** What one attempt to push an observation to a webhook came to (a small fixed set: see {@code PushService}). */
    public void pushed(String outcome) {
        pushes(outcome).increment();
    }

    /** A lease claim was decided: {@code granted}, or the refusal's error code in lower case. */
    public void leaseClaimed(long startNanos, String result) {
        timer("mp.lease.claim.duration", "Lease claims, from the request to the leases service's decision")
                .tag("result", result)
                .register(registry)
                .record(Duration.ofNanos(System.nanoTime() - startNanos));
    }

    static String outcomeOf(Throwable failure) {
        Throwable cause =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause == null) {
            return ACCEPTED;
        }
        if (cause instanceof ProtocolException refusal && refusal.details().containsKey("rejected_seq")) {
            return REJECTED;
        }
        return FAILED;
    }

    /** {@code delivered} (2xx), {@code failed} (retried), {@code refused} (the sink may not be pushed to now: nothing
     * sent), {@code gone} (410: the push disabled), {@code dead_lettered} (the delivery count limit reached). */
    static final String[] PUSH_OUTCOMES = {"delivered", "failed", "refused", "gone", "dead_lettered"};

    private Counter pushes(String outcome) {
        return Counter.builder("mp.push")
                .description("Webhook push attempts, by outcome")
                .tag("outcome", outcome)
                .register(registry);
    }

    private Counter publishes(String outcome) {
        return Counter.builder("mp.publish")
                .description("Publishes answered, by outcome")
                .tag("outcome", outcome)
                .register(registry);
    }

    private Timer publishTimer(String outcome) {
        return timer("mp.publish.duration", "Publishes, from the request to Kafka's acknowledgement of every row")
                .tag("outcome", outcome)
                .register(registry);
    }

    private static Timer.Builder timer(String name, String description) {
        return Timer.builder(name)
                .description(description)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(60));
    }
}
