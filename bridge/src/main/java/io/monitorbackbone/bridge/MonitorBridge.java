package io.monitorbackbone.bridge;

import io.monitorbackbone.binding.ObservationEncoder;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Rules;
import io.monitorbackbone.protocol.Seq;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.request.KafkaSource;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bridged monitor in this process (docs/adr/0015-bridge.md): a consumer in the monitor's own group
 * ({@code mp-bridge.<id>}) reads its source committed, and a transactional producer writes what a batch of records
 * becomes (observations, lease-subject marks, rule reactions, rejected rows, dead letters) together with the batch's
 * next offsets, in one transaction. A batch is one poll's records, or, while a backlog waits, those of the polls that
 * find records already fetched, up to {@link #MAX_TRANSACTION_RECORDS} or {@link #MAX_TRANSACTION_NANOS}. A crash at
 * any point leaves all of a batch or none of it; a failure closes both clients and starts again from the group's
 * committed offsets.
 */
final class MonitorBridge {
    private static final Logger LOGGER = LoggerFactory.getLogger(MonitorBridge.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration RETRY = Duration.ofSeconds(2);
    /**
     * A process killed mid-transaction holds back every committed reader of the monitor's log until its transaction is
     * aborted: by the same instance's restart at once, else by the broker after this long.
     */
    static final int TRANSACTION_TIMEOUT_MS = 10_000;

    /** Records per poll when a backlog waits (docs/benchmarks.md, scenario 10). */
    static final int MAX_POLL_RECORDS = 2_000;
    /**
     * A transaction goes on over the polls that find records already fetched, up to this many records or
     * {@link #MAX_TRANSACTION_NANOS}: a backlog pays its commit (the flush, the offsets, the end of the transaction and
     * its markers) once per this many records instead of once per poll. A poll that finds nothing ends it at once, so a
     * record that arrives alone is committed as soon as before.
     */
    static final int MAX_TRANSACTION_RECORDS = 10_000;
    /** How long a transaction is filled at most before its commit: a bound on what a backlog adds to a row's latency. */
    static final long MAX_TRANSACTION_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * The producer's batch per partition: 16 times the default, a few hundred observations. Each partition a transaction
     * writes holds a buffer this large while it fills (the lease-subject marks' too), so it is a cost per bridged monitor.
     */
    static final int BATCH_BYTES = 256 * 1024;
    /** The consumer's fetch per partition: about a poll's worth of source records of a few hundred bytes. */
    static final int FETCH_BYTES = 2 * 1024 * 1024;

    /** How often a bridge reading its source asks whether the topic is still there. */
    static final Duration SOURCE_CHECK = Duration.ofSeconds(5);
    /** How often a bridge whose source is missing asks whether it has appeared. */
    static final Duration SOURCE_WAIT = Duration.ofSeconds(1);
    /** The actor of the rows the bridge writes about its source. */
    static final String ACTOR = "system:bridge";

    private final BridgeApp.Settings settings;
    private final KafkaSource source;
    private final String monitorId;
    private final Clock clock;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Monitor monitor;
    private volatile boolean running = true;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    /** This bridge wrote a {@code missing} row and no {@code present} one since. */
    private volatile boolean missingReported;
    /**
     * This bridge saw its source missing: a partition of the topic that then appears holds only records written after
     * the monitor asked for them, so a {@code latest} start reads it from its beginning.
     */
    private volatile boolean sawMissing;

    final AtomicLong bridged = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong deadLettered = new AtomicLong();
    /** Records of the assigned partitions not yet read, as of the last fetch. */
    final AtomicLong lag = new AtomicLong();
    /**
     * What each assigned partition has become, as its committed offset's metadata says ({@link BridgeCounts}); a
     * partition whose offset carries none (committed before the bridge counted) counts from zero from then on. Only
     * the bridge's thread touches it (rebalance callbacks run inside its poll).
     */
    private final Map<TopicPartition, BridgeCounts> counted = new HashMap<>();
    /** Every row this bridge writes is encoded on its thread, by this. */
    private final ObservationEncoder encoder = new ObservationEncoder();

    private final BridgeApp totals;

    MonitorBridge(BridgeApp.Settings settings, Monitor monitor, KafkaSource source, Clock clock, BridgeApp totals) {
        this.totals = totals;
        this.settings = settings;
        this.monitor = monitor;
        this.source = source;
        this.monitorId = monitor.id();
        this.clock = clock;
        this.thread = new Thread(this::run, "mp-bridge-" + monitorId);
        this.thread.setDaemon(true);
    }

    static String group(String monitorId) {
        return BridgeApp.GROUP_PREFIX + monitorId;
    }

    static String transactionalId(String monitorId, String instanceId) {
        return BridgeApp.TRANSACTIONAL_ID_PREFIX + monitorId + "." + instanceId;
    }

    KafkaSource source() {
        return source;
    }

    /** A new definition with the same source (types, rules): applied from the next batch on. */
    void monitor(Monitor changed) {
        this.monitor = changed;
    }

    void start() {
        LOGGER.info(
                "bridge: monitor {} reads kafka:{} (format {}, group {})",
                monitorId,
                source.topic(),
                source.format(),
                group(monitorId));
        thread.start();
    }

    /** Stops after the transaction in flight, if any, has ended; the group's offsets stay where they are. */
    void stop() {
        stopSoon();
        awaitStopped();
    }

    /**
     * Tells the bridge to stop after its transaction in flight, without waiting: several bridges told at once end
     * their transactions together, instead of one after another ({@link #awaitStopped} then waits for each).
     */
    void stopSoon() {
        running = false;
        stopped.countDown();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    /** Returns once the bridge told to stop has closed its clients (30 s at most). */
    void awaitStopped() {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOGGER.info("bridge: monitor {} stopped reading kafka:{}", monitorId, source.topic());
    }

    private void run() {
        while (running) {
            try {
                session();
            } catch (WakeupException e) {
                if (!running) {
                    return;
                }
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                LOGGER.warn(
                        "bridge: monitor {}: {}; starting again from the committed offsets", monitorId, e.toString());
                try {
                    stopped.await(RETRY.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** One consumer and producer, until a failure or a stop. */
    private void session() {
        try (KafkaProducer<String, byte[]> producer = producer();
                KafkaConsumer<byte[], byte[]> c = consumer()) {
            consumer = c;
            if (!running) {
                return;
            }
            producer.initTransactions();
            if (!awaitSource(producer)) {
                return;
            }
            c.subscribe(List.of(source.topic()), new Positioning(c, producer));
            try {
                follow(producer, c);
            } catch (RuntimeException e) {
                if (open != null) {
                    // Failed with a transaction open: aborted, and the next session reads its records again.
                    open = null;
                    abort(producer);
                }
                throw e;
            }
        } finally {
            consumer = null;
            lag.set(0);
            // The next session reads them again from the committed offsets, the only counts that stand.
            counted.clear();
        }
    }

    /** Polls, writes and commits until the bridge is told to stop, then commits what its open transaction holds. */
    private void follow(KafkaProducer<String, byte[]> producer, KafkaConsumer<byte[], byte[]> c) {
        long checkAt = System.nanoTime() + SOURCE_CHECK.toNanos();
        while (running) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                // With a transaction open, only what is fetched already: none ends the transaction now.
                records = c.poll(open == null ? POLL : Duration.ZERO);
            } catch (WakeupException stopping) {
                if (running) {
                    throw stopping;
                }
                // Told to stop: the open transaction, if any, is committed below.
                break;
            }
            if (!records.isEmpty()) {
                add(producer, records);
            }
            if (open != null
                    && (records.isEmpty()
                            || open.records() >= MAX_TRANSACTION_RECORDS
                            || System.nanoTime() - open.openedAt >= MAX_TRANSACTION_NANOS)) {
                commit(producer, c);
            }
            if (open != null) {
                continue;
            }
            long behind = 0;
            for (TopicPartition tp : c.assignment()) {
                behind += c.currentLag(tp).orElse(0);
            }
            lag.set(behind);
            if (System.nanoTime() - checkAt >= 0) {
                checkAt = System.nanoTime() + SOURCE_CHECK.toNanos();
                if (totals.sourceProblem(source.topic()) != null) {
                    // Deleted under the bridge: say so, and read it again once it is back.
                    c.unsubscribe();
                    lag.set(0);
                    if (!awaitSource(producer)) {
                        return;
                    }
                    c.subscribe(List.of(source.topic()), new Positioning(c, producer));
                }
            }
        }
        if (open != null) {
            // Told to stop with a transaction open: what it holds is committed, as a stop promises.
            commit(producer, c);
        }
    }

    /**
     * Returns once the source topic is there (true) or the bridge stops (false). While it is missing the monitor's log
     * says so once, in a {@link Vocabulary#BRIDGE_SOURCE} row with status {@code missing} and the reason, which the
     * state folds into its {@code stale_source} gap; when it is back, a {@code present} row ends the gap (as any
     * bridged record would).
     */
    private boolean awaitSource(KafkaProducer<String, byte[]> producer) {
        String problem = totals.sourceProblem(source.topic());
        while (problem != null) {
            sawMissing = true;
            if (!missingReported) {
                LOGGER.warn("bridge: monitor {}: kafka:{}: {}", monitorId, source.topic(), problem);
                status(producer, "missing", problem);
                missingReported = true;
            }
            try {
                if (stopped.await(SOURCE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            problem = totals.sourceProblem(source.topic());
        }
        if (missingReported) {
            LOGGER.info("bridge: monitor {}: kafka:{} is there", monitorId, source.topic());
            status(producer, "present", null);
            missingReported = false;
        }
        return running;
    }

    /** One row about the source, in a transaction of its own. */
    private void status(KafkaProducer<String, byte[]> producer, String status, String reason) {
        com.fasterxml.jackson.databind.node.ObjectNode payload = io.monitorbackbone.protocol.Json.object();
        payload.put("status", status);
        payload.put("topic", source.topic());
        if (reason != null) {
            payload.put("reason", reason);
        }
        Instant now = clock.instant();
        Draft row = ProtocolRows.row(monitor, Vocabulary.BRIDGE_SOURCE, ACTOR, null, payload, false, now);
        String eventId = "bridge-source:" + settings.instanceId() + ":" + status + ":" + now.toEpochMilli();
        producer.beginTransaction();
        try {
            producer.send(encoder.encode(Topics.obs(monitorId), monitorId, eventId, row));
            producer.commitTransaction();
        } catch (RuntimeException e) {
            abort(producer);
            throw e;
        }
    }

    private record Pending(Draft draft, String eventId, Instant now, Future<RecordMetadata> written) {}

    /**
     * The transaction being filled: the rows of one or more polls, and each source partition's next offset and counts
     * after them. The definition it began with applies to all of it; only the bridge's thread touches it.
     */
    private static final class Open {
        final Monitor monitor;
        final boolean rules;
        final long openedAt = System.nanoTime();
        final Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        final Map<TopicPartition, BridgeCounts> counts = new HashMap<>();
        final List<Pending> pending = new ArrayList<>();
        final Set<String> marked = new HashSet<>();
        long b;
        long r;
        long d;

        Open(Monitor monitor) {
            this.monitor = monitor;
            this.rules = monitor.rules() != null
                    && monitor.rules().isArray()
                    && !monitor.rules().isEmpty();
        }

        /** The source records it holds: each became a row, a rejected row or a dead letter. */
        long records() {
            return b + r + d;
        }
    }

    /** The transaction open on this bridge's producer, if any. */
    private Open open;

    /** Writes what a poll's records become in the open transaction, beginning one if none is open. */
    private void add(KafkaProducer<String, byte[]> producer, ConsumerRecords<byte[], byte[]> records) {
        if (open == null) {
            producer.beginTransaction();
            open = new Open(monitor);
        }
        Open t = open;
        String topic = Topics.obs(monitorId);
        Instant now = clock.instant();
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                BridgeCounts before = t.counts.computeIfAbsent(tp, p -> counted.getOrDefault(p, BridgeCounts.ZERO));
                RecordMapper.Outcome outcome = RecordMapper.map(t.monitor, source, record, now);
                if (outcome instanceof RecordMapper.Observation o) {
                    Draft draft = o.draft();
                    if (draft.subject() != null && t.marked.add(draft.subject())) {
                        // The leases service's index of claimable subjects, in the same transaction as the row.
                        producer.send(new ProducerRecord<>(
                                Topics.LEASE_SUBJECTS,
                                LeaseCommand.key(monitorId, draft.subject()),
                                draft.horizon().getBytes(StandardCharsets.UTF_8)));
                    }
                    Future<RecordMetadata> written =
                            producer.send(encoder.encode(topic, monitorId, o.eventId(), draft));
                    if (t.rules) {
                        t.pending.add(new Pending(draft, o.eventId(), now, written));
                    }
                    t.b++;
                    t.counts.put(tp, before.plus(1, 0, 0));
                } else if (outcome instanceof RecordMapper.Refused refused) {
                    producer.send(encoder.encode(topic, monitorId, refused.eventId(), refused.row()));
                    t.r++;
                    t.counts.put(tp, before.plus(0, 1, 0));
                } else if (outcome instanceof RecordMapper.DeadLetter dead) {
                    producer.send(deadLetter(record, dead));
                    t.d++;
                    t.counts.put(tp, before.plus(0, 0, 1));
                }
                t.next.put(tp, new OffsetAndMetadata(record.offset() + 1));
            }
        } catch (RuntimeException e) {
            open = null;
            abort(producer);
            throw e;
        }
    }

    /** Ends the open transaction: rule reactions, the offsets with their counts, the commit. */
    private void commit(KafkaProducer<String, byte[]> producer, KafkaConsumer<byte[], byte[]> c) {
        Open t = open;
        open = null;
        String topic = Topics.obs(monitorId);
        try {
            // Each partition's counts ride with its offset, in the same transaction as the rows they count.
            t.counts.forEach((tp, n) ->
                    t.next.put(tp, new OffsetAndMetadata(t.next.get(tp).offset(), n.metadata())));
            if (!t.pending.isEmpty()) {
                // Rules react to a row's seq, which the broker gives when it appends: the rows are flushed, and each
                // observation's reactions follow in the same transaction, so none is skipped and none outlives an
                // abort.
                producer.flush();
                for (Pending p : t.pending) {
                    long seq = Seq.fromOffset(p.written().get().offset());
                    int i = 0;
                    for (Draft reaction : Rules.reactions(t.monitor, p.draft(), seq, p.now())) {
                        producer.send(encoder.encode(topic, monitorId, p.eventId() + "#rule-" + i++, reaction));
                    }
                }
            }
            producer.sendOffsetsToTransaction(t.next, c.groupMetadata());
            producer.commitTransaction();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abort(producer);
            throw new IllegalStateException("interrupted while writing a batch", e);
        } catch (java.util.concurrent.ExecutionException e) {
            abort(producer);
            throw new IllegalStateException("a write of the batch failed: " + e.getCause(), e.getCause());
        } catch (RuntimeException e) {
            abort(producer);
            throw e;
        }
        counted.putAll(t.counts);
        bridged.addAndGet(t.b);
        rejected.addAndGet(t.r);
        deadLettered.addAndGet(t.d);
        totals.bridged.addAndGet(t.b);
        totals.rejected.addAndGet(t.r);
        totals.deadLettered.addAndGet(t.d);
    }

    private static void abort(KafkaProducer<String, byte[]> producer) {
        try {
            producer.abortTransaction();
        } catch (RuntimeException ignored) {
            // A fenced or failed producer cannot abort; closing it does, and the broker times the transaction out.
        }
    }

    /** The undecodable record as it came, keyed by monitor, with where it came from and why in headers. */
    private ProducerRecord<String, byte[]> deadLetter(
            ConsumerRecord<byte[], byte[]> record, RecordMapper.DeadLetter dead) {
        RecordHeaders headers = new RecordHeaders(record.headers().toArray());
        headers.add("mp_monitor", monitorId.getBytes(StandardCharsets.UTF_8));
        headers.add("mp_source_topic", record.topic().getBytes(StandardCharsets.UTF_8));
        headers.add("mp_source_partition", Integer.toString(record.partition()).getBytes(StandardCharsets.UTF_8));
        headers.add("mp_source_offset", Long.toString(record.offset()).getBytes(StandardCharsets.UTF_8));
        headers.add("mp_error", dead.error().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(
                Topics.BRIDGE_DEAD_LETTERS, null, record.timestamp(), monitorId, record.value(), headers);
    }

    private KafkaProducer<String, byte[]> producer() {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId(monitorId, settings.instanceId()));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // A batch is written at once and committed: batches of a poll's records and more go out in a few produce
        // requests instead of one per 16 KiB (the default), which the broker pays for per request.
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, BATCH_BYTES);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, TopicLayout.MAX_RECORD_BYTES);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
        return new KafkaProducer<>(
                settings.clients().properties("mp-bridge-" + settings.instanceId() + "-" + monitorId, p),
                new StringSerializer(),
                new ByteArraySerializer());
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group(monitorId));
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // A committed offset that retention has passed by starts at the oldest record still there.
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        // A backlog is read in polls of up to this many records, a transaction holding several of them; a single
        // record still goes alone.
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, FETCH_BYTES);
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        return new KafkaConsumer<>(
                settings.clients().properties("mp-bridge-" + settings.instanceId() + "-" + monitorId + "-consumer", c),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    /**
     * Where a partition starts: at the group's committed offset; a partition the group never read starts at the source
     * settings' {@code start}, and that position is committed at once, so a restart before the first batch does not
     * move a {@code latest} or a time on. A {@code latest} start of a topic this bridge saw missing is its beginning:
     * every record of it was written after the monitor asked for them.
     */
    private final class Positioning implements ConsumerRebalanceListener {
        private final KafkaConsumer<byte[], byte[]> c;
        private final KafkaProducer<String, byte[]> producer;

        Positioning(KafkaConsumer<byte[], byte[]> c, KafkaProducer<String, byte[]> producer) {
            this.c = c;
            this.producer = producer;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // Still this group's generation: the open transaction's offsets can be committed, and must be before
            // another member reads on from them.
            if (open != null) {
                commit(producer, c);
            }
            partitions.forEach(counted::remove);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            partitions.forEach(counted::remove);
            if (open != null) {
                // Another member may read these partitions already: the open transaction cannot commit their offsets.
                // It is aborted and the session starts again from the committed offsets, so the records it held that
                // are still this member's are read again rather than skipped.
                open = null;
                abort(producer);
                throw new IllegalStateException("partitions lost with a transaction open; starting again");
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(partitions));
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata o = committed.get(tp);
                BridgeCounts n = o == null ? null : BridgeCounts.parse(o.metadata());
                counted.put(tp, n == null ? BridgeCounts.ZERO : n);
            }
            List<TopicPartition> fresh =
                    partitions.stream().filter(tp -> committed.get(tp) == null).toList();
            if (fresh.isEmpty()) {
                return;
            }
            Instant at = source.startTime();
            if (at != null) {
                Map<TopicPartition, Long> times = new HashMap<>();
                fresh.forEach(tp -> times.put(tp, at.toEpochMilli()));
                Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(times);
                Map<TopicPartition, Long> ends = c.endOffsets(fresh);
                for (TopicPartition tp : fresh) {
                    OffsetAndTimestamp o = found.get(tp);
                    c.seek(tp, o != null ? o.offset() : ends.get(tp));
                }
            } else if (source.start().equals("latest") && !sawMissing) {
                c.seekToEnd(fresh);
            } else {
                c.seekToBeginning(fresh);
            }
            Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
            fresh.forEach(tp -> positions.put(tp, new OffsetAndMetadata(c.position(tp), BridgeCounts.ZERO.metadata())));
            c.commitSync(positions);
        }
    }
}
