package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Seq;
import io.monitorbackbone.protocol.Subscription;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * One thread and one consumer (no group: plain assignment) that read the compacted tables from the start and, feeding
 * the {@link Catalog}, the logs of the monitors this gateway needs: those with readers parked, pulling or streaming
 * here lately, MCP resource subscriptions, lease calls (see {@link Catalog#use}). It is this gateway's tail: a pull
 * parked on a monitor is woken from here the moment a record arrives. A log is read from its end minus a recent window
 * when it is first needed, and let go once nothing has needed it for the follow idle time, so a gateway fetches what its
 * own readers read, not every write of the cluster.
 */
public final class Follower extends ConsumerLoop {
    private static final Logger LOGGER = Logger.getLogger(Follower.class);
    private static final List<String> TABLES =
            List.of(Topics.MONITORS, Topics.SUBSCRIPTIONS, Topics.CURSORS, Topics.LEASES, Topics.STATE);

    private final Catalog catalog;
    private final Queue<String> toFollow = new ConcurrentLinkedQueue<>();
    private final Set<TopicPartition> assigned = new HashSet<>();
    private final Map<TopicPartition, Long> tablesEnd = new HashMap<>();
    private final List<TopicPartition> tablePartitions = new ArrayList<>();
    private final Map<TopicPartition, Long> applied = new java.util.concurrent.ConcurrentHashMap<>();
    private final Object progress = new Object();
    private long lastFullProgress;
    private final CompletableFuture<Void> caughtUp = new CompletableFuture<>();
    private volatile long lag;
    private final long idleNanos;
    private long lastRelease = System.nanoTime();
    private volatile int logs;
    /** Decodes every log record this follower applies, on its thread ({@link #step}). */
    private final io.monitorbackbone.binding.ObservationDecoder decoder =
            new io.monitorbackbone.binding.ObservationDecoder();

    /** @param idle how long a log nothing needs is still followed ({@code MP_FOLLOW_IDLE}) */
    public Follower(KafkaConsumer<byte[], byte[]> consumer, Catalog catalog, Duration idle) {
        super(consumer, "mp-follower");
        this.catalog = catalog;
        this.idleNanos = idle.toNanos();
        catalog.onFollow(this::follow);
    }

    public static List<String> tables() {
        return TABLES;
    }

    /** Starts reading; the returned future completes once the tables are read up to where they ended at start. */
    public CompletableFuture<Void> start() {
        startThread();
        return caughtUp;
    }

    void follow(String monitorId) {
        toFollow.add(monitorId);
        wake();
    }

    @Override
    protected boolean init() {
        try {
            List<TopicPartition> tables = new ArrayList<>();
            for (String table : TABLES) {
                for (PartitionInfo p : consumer.partitionsFor(table, Duration.ofSeconds(30))) {
                    tables.add(new TopicPartition(table, p.partition()));
                }
            }
            assigned.addAll(tables);
            tablePartitions.addAll(tables);
            consumer.assign(assigned);
            consumer.seekToBeginning(tables);
            tablesEnd.putAll(consumer.endOffsets(tables, Duration.ofSeconds(30)));
            checkCaughtUp();
        } catch (RuntimeException e) {
            caughtUp.completeExceptionally(e);
            return false;
        }
        return true;
    }

    @Override
    protected void step() {
        releaseIdle();
        assignNewMonitors();
        org.apache.kafka.clients.consumer.ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<byte[], byte[]> r : batch) {
            dispatch(r);
        }
        recordProgress(batch.partitions());
        checkCaughtUp();
    }

    /**
     * The follower's consumer, for its client meters only ({@code KafkaClientMetrics} reads {@code metrics()}, which
     * is safe from any thread); nothing else may touch it off the follower's thread.
     */
    public org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> meteredConsumer() {
        return consumer;
    }

    /** How many monitors' logs this follower reads now (or has been asked to). */
    public int logs() {
        return logs;
    }

    /** Stops reading the logs nothing has needed for the idle time; looked at every 100 ms. */
    private void releaseIdle() {
        long now = System.nanoTime();
        if (now - lastRelease < 100_000_000L) {
            return;
        }
        lastRelease = now;
        List<TopicPartition> idle = new ArrayList<>();
        for (TopicPartition tp : assigned) {
            if (Topics.isObs(tp.topic())
                    && catalog.log(Topics.monitorOf(tp.topic())).release(now, idleNanos)) {
                idle.add(tp);
            }
        }
        if (!idle.isEmpty()) {
            idle.forEach(assigned::remove);
            // Before the next poll: a position left here would answer a later follow's wait for a stale offset.
            idle.forEach(applied::remove);
            consumer.assign(assigned);
            countLogs();
        }
    }

    private void countLogs() {
        logs = (int) assigned.stream().filter(tp -> Topics.isObs(tp.topic())).count();
    }

    private void assignNewMonitors() {
        List<TopicPartition> fresh = new ArrayList<>();
        for (String id; (id = toFollow.poll()) != null; ) {
            TopicPartition tp = new TopicPartition(Topics.obs(id), 0);
            if (catalog.log(id).followed() && assigned.add(tp)) {
                fresh.add(tp);
            }
        }
        if (!fresh.isEmpty()) {
            consumer.assign(assigned);
            countLogs();
            // Only the newest records: the tail, recent subjects and write ids need no more, and a monitor's fold is
            // the projector's. A log of a million records costs a restart no more than one of a thousand.
            Map<TopicPartition, Long> begin =
                    uninterrupted(() -> consumer.beginningOffsets(fresh, Duration.ofSeconds(30)));
            Map<TopicPartition, Long> end = uninterrupted(() -> consumer.endOffsets(fresh, Duration.ofSeconds(30)));
            for (TopicPartition tp : fresh) {
                long from = Math.max(begin.getOrDefault(tp, 0L), end.getOrDefault(tp, 0L) - catalog.recentWindow());
                catalog.log(Topics.monitorOf(tp.topic())).readsFrom(Seq.fromOffset(from));
                consumer.seek(tp, from);
            }
        }
    }

    /**
     * A blocking consumer call that a {@link #follow} wake-up must not cut short: the wake-up is for the poll, and
     * the partitions it announces are picked up before the next one anyway.
     */
    private static <T> T uninterrupted(java.util.function.Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                // retried: a wake-up is spent by the call it interrupts
            }
        }
    }

    /**
     * Where this follower stands in each partition. A transaction marker moves the position without a record, so
     * every followed log is also looked at every 100 ms, not only those a batch touched.
     */
    private void recordProgress(java.util.Set<TopicPartition> touched) {
        for (TopicPartition tp : tablePartitions) {
            applied.put(tp, consumer.position(tp));
        }
        long now = System.nanoTime();
        java.util.Collection<TopicPartition> logs = now - lastFullProgress > 100_000_000L ? assigned : touched;
        for (TopicPartition tp : logs) {
            if (Topics.isObs(tp.topic())) {
                applied.put(tp, consumer.position(tp));
            }
        }
        if (logs == assigned) {
            lastFullProgress = now;
            lag = currentLag();
        }
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    /**
     * Records between this follower's position and the end of what it follows (tables and logs, read committed), as
     * of its last fetches: no broker call. A partition not fetched yet counts as none.
     */
    private long currentLag() {
        long sum = 0;
        for (TopicPartition tp : assigned) {
            sum += consumer.currentLag(tp).orElse(0);
        }
        return sum;
    }

    /** The records this follower is behind, as of its last look (every 100 ms while it runs). */
    public long lag() {
        return lag;
    }

    /** Whether it has read the tables up to where they ended at start. */
    public boolean caughtUp() {
        return caughtUp.isDone() && !caughtUp.isCompletedExceptionally();
    }

    /**
     * Returns once this follower has read the partitions up to the given end offsets (asked of the broker): a read
     * after it sees every write any gateway had acknowledged before it started.
     */
    public void awaitApplied(String table, Map<TopicPartition, Long> endOffsets, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            for (Map.Entry<TopicPartition, Long> end : endOffsets.entrySet()) {
                while (applied.getOrDefault(end.getKey(), 0L) < end.getValue()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new io.monitorbackbone.protocol.ServerFault("this gateway is behind on " + table, null);
                    }
                    try {
                        progress.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new io.monitorbackbone.protocol.ServerFault(
                                "interrupted while catching up on " + table, e);
                    }
                }
            }
        }
    }

    public List<TopicPartition> partitionsOf(String table) {
        return tablePartitions.stream().filter(tp -> tp.topic().equals(table)).toList();
    }

    private void checkCaughtUp() {
        if (caughtUp.isDone()) {
            return;
        }
        for (Map.Entry<TopicPartition, Long> end : tablesEnd.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return;
            }
        }
        caughtUp.complete(null);
    }

    /**
     * Before the follower has caught up, a record of a keyed table ({@link TopicLayout#KEYED_TABLES}) outside the
     * partition its key hashes to ends the start: the table's partitions were raised under its records (a
     * {@code kafka-topics --alter}, a KafkaTopic's partitions raised), so a key's records are in two partitions and
     * would be read in no order.
     */
    private boolean misplaced(ConsumerRecord<byte[], byte[]> r) {
        if (caughtUp.isDone() || r.key() == null || !TopicLayout.KEYED_TABLES.contains(r.topic())) {
            return false;
        }
        int partitions = partitionsOf(r.topic()).size();
        int belongs = TopicLayout.partitionOf(key(r), partitions);
        if (belongs == r.partition()) {
            return false;
        }
        caughtUp.completeExceptionally(new io.monitorbackbone.binding.Durability.Refused(r.topic() + " has "
                + partitions + " partitions, but its record at partition " + r.partition() + " offset " + r.offset()
                + " was written when it had fewer (its key belongs in partition " + belongs
                + "): a table's partitions cannot be raised under its records; migrate the tables as"
                + " docs/operations.md#table-partitions says (MP_TABLE_PARTITIONS)"));
        return true;
    }

    private void dispatch(ConsumerRecord<byte[], byte[]> r) {
        if (misplaced(r)) {
            return;
        }
        if (r.value() == null) {
            if (Topics.STATE.equals(r.topic()) && r.key() != null) {
                catalog.applyState(key(r), null);
            } else if (Topics.LEASES.equals(r.topic()) && r.key() != null) {
                catalog.applyLease(key(r), null);
            }
            return;
        }
        try {
            switch (r.topic()) {
                case Topics.MONITORS -> catalog.apply(Json.MAPPER.readValue(r.value(), Monitor.class));
                case Topics.SUBSCRIPTIONS -> catalog.apply(Json.MAPPER.readValue(r.value(), Subscription.class));
                case Topics.CURSORS -> catalog.applyRecord(key(r), Json.MAPPER.readValue(r.value(), Cursor.class));
                case Topics.LEASES ->
                    catalog.applyLease(key(r), io.monitorbackbone.protocol.lease.Lease.fromJson(Json.read(r.value())));
                case Topics.STATE ->
                    catalog.applyState(key(r), io.monitorbackbone.protocol.Aggregate.fromJson(r.value()));
                default -> {
                    if (Topics.isObs(r.topic())) {
                        String monitor = Topics.monitorOf(r.topic());
                        long seq = Seq.fromOffset(r.offset());
                        io.monitorbackbone.protocol.Draft draft =
                                decoder.decode(monitor, r.headers(), r.value(), r.timestamp());
                        org.apache.kafka.common.header.Header ceId = r.headers().lastHeader("ce_id");
                        catalog.log(monitor)
                                .apply(
                                        seq,
                                        draft,
                                        r.timestamp(),
                                        ceId == null
                                                ? null
                                                : new String(ceId.value(), java.nio.charset.StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            LOGGER.errorf(e, "skipping unreadable record topic=%s offset=%d", r.topic(), r.offset());
        }
    }

    private static String key(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
