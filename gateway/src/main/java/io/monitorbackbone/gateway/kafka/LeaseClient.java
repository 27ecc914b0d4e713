package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.LeaseDecisions;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Sends lease commands to the leases service and waits for its answers (docs/adr/0006): a command goes to
 * {@code mp.lease-commands} keyed by (monitor, subject); this gateway reads every reply from
 * {@code mp.lease-replies} (read_committed, from the end at start) and completes the request that carries its id.
 */
public final class LeaseClient extends ConsumerLoop implements LeaseDecisions {
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);

    private final KafkaProducer<String, byte[]> producer;
    private final String commands;
    private final String replies;
    private final Map<String, CompletableFuture<LeaseReply>> pending = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> listening = new CompletableFuture<>();

    public LeaseClient(
            KafkaConsumer<byte[], byte[]> consumer,
            KafkaProducer<String, byte[]> producer,
            String commands,
            String replies) {
        super(consumer, "mp-lease-replies");
        this.producer = producer;
        this.commands = commands;
        this.replies = replies;
    }

    /** Starts reading replies; the future completes once the reader is positioned, before any command is sent. */
    public CompletableFuture<Void> start() {
        startThread();
        return listening;
    }

    @Override
    protected boolean init() {
        try {
            List<TopicPartition> all = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(replies, Duration.ofSeconds(30))) {
                all.add(new TopicPartition(replies, p.partition()));
            }
            consumer.assign(all);
            consumer.seekToEnd(all);
            all.forEach(consumer::position);
            listening.complete(null);
            return true;
        } catch (RuntimeException e) {
            listening.completeExceptionally(e);
            return false;
        }
    }

    @Override
    protected void step() {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
            if (r.key() == null || r.value() == null) {
                continue;
            }
            CompletableFuture<LeaseReply> waiting = pending.remove(new String(r.key(), StandardCharsets.UTF_8));
            if (waiting != null) {
                waiting.complete(LeaseReply.fromJson(Json.read(r.value())));
            }
        }
    }

    /** Sends one command and blocks for its answer; a missing answer is a server fault, never a guess. */
    @Override
    public LeaseReply decide(LeaseCommand command) {
        CompletableFuture<LeaseReply> answer = new CompletableFuture<>();
        pending.put(command.requestId(), answer);
        try {
            producer.send(new ProducerRecord<>(commands, command.key(), command.toBytes()))
                    .get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return answer.get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerFault("interrupted while waiting for the leases service", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new ServerFault("the leases service did not answer in time: " + e, e);
        } finally {
            pending.remove(command.requestId());
        }
    }
}
