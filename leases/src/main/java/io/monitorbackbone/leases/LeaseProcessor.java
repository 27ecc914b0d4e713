package io.monitorbackbone.leases;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseDecision;
import io.monitorbackbone.protocol.lease.LeaseReply;
import io.monitorbackbone.protocol.lease.LeaseState;
import io.monitorbackbone.protocol.lease.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single writer for the keys of one task: every request and every expiry for a (monitor, subject) is decided
 * here, one at a time, against the lease table. Under exactly-once the new state, the reply, the lease row and the
 * {@code mp.leases} entry commit together or not at all.
 */
final class LeaseProcessor implements Processor<String, LeaseInput, String, LeaseOutput> {
    private static final Logger LOGGER = LoggerFactory.getLogger(LeaseProcessor.class);
    /** Sweeps are at least this far apart, and a lease's expiry is acted on at most this late (plus a poll). */
    static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);

    private final String obsPrefix;
    private ProcessorContext<String, LeaseOutput> context;
    private KeyValueStore<String, LeaseState> leases;
    /** {@code <20-digit expiry millis>\0<lease key>} → lease key: held leases in deadline order. */
    private KeyValueStore<String, String> deadlines;
    /**
     * The one scheduled sweep, if any, and the wall-clock time it is for. A sweep is a punctuation, and after every
     * punctuation Kafka Streams commits: under exactly-once a transaction, even when the sweep found nothing. So the
     * task sweeps when a deadline has passed, not every second: with no lease held it does not sweep at all.
     */
    private Cancellable sweeping;

    private long sweepAt = Long.MAX_VALUE;

    LeaseProcessor(String obsPrefix) {
        this.obsPrefix = obsPrefix;
    }

    @Override
    public void init(ProcessorContext<String, LeaseOutput> context) {
        this.context = context;
        this.leases = context.getStateStore(LeaseTopology.LEASE_STORE);
        this.deadlines = context.getStateStore(LeaseTopology.DEADLINE_STORE);
        // Once after the task starts here: it may hold deadlines that passed while no process had it.
        sweepAt(context.currentSystemTimeMs() + SWEEP_INTERVAL.toMillis());
    }

    @Override
    public void process(Record<String, LeaseInput> record) {
        String key = record.key();
        Instant now = Instant.ofEpochMilli(context.currentSystemTimeMs());
        LeaseState current = leases.get(key);
        if (record.value() instanceof LeaseInput.Published published) {
            markPublished(key, current, published.horizon());
        } else if (record.value() instanceof LeaseInput.Command command) {
            decide(key, current, command.command(), now);
        }
    }

    private void markPublished(String key, LeaseState current, String horizon) {
        int split = key.indexOf(LeaseCommand.KEY_SEPARATOR);
        if (split < 0) {
            return;
        }
        LeaseState next = Leases.markPublished(
                current, key.substring(0, split), key.substring(split + 1), horizon.isEmpty() ? null : horizon);
        if (next != current) {
            leases.put(key, next);
        }
    }

    private void decide(String key, LeaseState current, LeaseCommand command, Instant now) {
        if (!key.equals(command.key())) {
            // Decided here it would bypass the task that owns its real key: two writers for one lease.
            LOGGER.warn(
                    "lease command on the wrong key: key={} monitor={} subject={}",
                    key.replace(LeaseCommand.KEY_SEPARATOR, '/'),
                    command.monitor(),
                    command.subject());
            ProtocolException refusal = ProtocolException.of(
                    ErrorCode.INVALID, "lease command keyed by something other than its monitor and subject");
            forwardReply(command.requestId(), new LeaseReply(refusal.status(), refusal.toJson(), null), now);
            return;
        }
        LeaseDecision decision = Leases.decide(current, command, now);
        apply(key, current, decision, now);
        forwardReply(command.requestId(), decision.reply(), now);
    }

    /** The wall-clock sweep: only leases whose deadline has passed are read, in deadline order. */
    private void sweep(long wallClockMs) {
        Instant now = Instant.ofEpochMilli(wallClockMs);
        List<KeyValue<String, String>> due = new ArrayList<>();
        // Expired means now > deadline, so every deadline up to now - 1 ms; '\u0001' sorts after the separator.
        try (KeyValueIterator<String, String> it = deadlines.range("", deadlineMillis(wallClockMs - 1) + '\u0001')) {
            it.forEachRemaining(due::add);
        }
        for (KeyValue<String, String> entry : due) {
            LeaseState current = leases.get(entry.value);
            LeaseDecision decision = Leases.expire(current, now);
            if (decision.changed()) {
                apply(entry.value, current, decision, now);
            } else {
                deadlines.delete(entry.key);
            }
        }
        sweeping.cancel();
        sweeping = null;
        sweepAt = Long.MAX_VALUE;
        try (KeyValueIterator<String, String> it = deadlines.all()) {
            if (it.hasNext()) {
                sweepAfter(Long.parseLong(it.next().key.substring(0, 20)));
            }
        }
    }

    /** Makes sure a sweep comes after {@code deadlineMs} (an expiry is a deadline passed) and not sooner than due. */
    private void sweepAfter(long deadlineMs) {
        sweepAt(Math.max(deadlineMs + 1, context.currentSystemTimeMs() + SWEEP_INTERVAL.toMillis()));
    }

    /** Schedules the sweep for {@code atMs}, unless one is scheduled already no later. */
    private void sweepAt(long atMs) {
        if (sweeping != null && sweepAt <= atMs) {
            return;
        }
        if (sweeping != null) {
            sweeping.cancel();
        }
        long delay = Math.max(1, atMs - context.currentSystemTimeMs());
        sweeping = context.schedule(Duration.ofMillis(delay), PunctuationType.WALL_CLOCK_TIME, this::sweep);
        sweepAt = atMs;
    }

    private void apply(String key, LeaseState current, LeaseDecision decision, Instant now) {
        if (decision.changed()) {
            LeaseState next = decision.state();
            leases.put(key, next);
            reindex(key, current, next);
            Lease before = current == null ? null : current.lease();
            if (!Objects.equals(before, next.lease())) {
                context.forward(new Record<>(key, new LeaseOutput.LeaseChange(next.lease()), now.toEpochMilli()));
            }
        }
        for (LeaseDecision.Row row : decision.rows()) {
            String monitor = decision.state().monitor();
            ProducerRecord<String, byte[]> encoded =
                    ObservationCodec.encode(obsPrefix + monitor, monitor, row.eventId(), row.draft());
            context.forward(new Record<String, LeaseOutput>(
                    encoded.key(),
                    new LeaseOutput.Observation(encoded.value()),
                    now.toEpochMilli(),
                    encoded.headers()));
        }
    }

    private void forwardReply(String requestId, LeaseReply reply, Instant now) {
        context.forward(new Record<>(requestId, new LeaseOutput.Reply(reply), now.toEpochMilli()));
    }

    private void reindex(String key, LeaseState before, LeaseState after) {
        String was = deadlineKey(key, before);
        String is = deadlineKey(key, after);
        if (Objects.equals(was, is)) {
            return;
        }
        if (was != null) {
            deadlines.delete(was);
        }
        if (is != null) {
            deadlines.put(is, key);
            sweepAfter(after.lease().expires().toEpochMilli());
        }
    }

    private static String deadlineKey(String key, LeaseState state) {
        Lease lease = state == null ? null : state.lease();
        if (lease == null || lease.holder() == null) {
            return null;
        }
        return deadlineMillis(lease.expires().toEpochMilli()) + LeaseCommand.KEY_SEPARATOR + key;
    }

    /** Zero-padded so that the store's byte order is time order. */
    private static String deadlineMillis(long millis) {
        return String.format("%020d", Math.max(0, millis));
    }
}
