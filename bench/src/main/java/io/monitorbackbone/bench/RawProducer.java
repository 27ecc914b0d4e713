package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.TopicLayout;
import io.monitorbackbone.binding.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Scenario 8, the ceiling: the Kafka producer alone on the same broker, writing copies of the record scenario 2's
 * publishes made (same key, CloudEvents headers and value), with the gateway's producer settings ({@code acks=all},
 * idempotent, {@code linger.ms=0}). Synchronous over 16 threads is what 16 connections each waiting for their answer
 * can reach at best, and one thread what one connection can; pipelined shows what the broker takes when nobody waits.
 */
final class RawProducer {
    private RawProducer() {}

    static ObjectNode run(Map<String, String> client, String sourceMonitor, String topic, Scenarios.Sizes sizes) {
        ObjectNode out = BenchClient.JSON.createObjectNode();
        ConsumerRecord<byte[], byte[]> sample = lastRecord(client, Topics.obs(sourceMonitor));
        int bytes = sample.serializedKeySize()
                + sample.serializedValueSize()
                + java.util.Arrays.stream(sample.headers().toArray())
                        .mapToInt(h -> h.key().length() + h.value().length)
                        .sum();
        out.put("record_bytes", bytes);
        out.put("topic", topic);
        try (Admin admin = Admin.create(new java.util.HashMap<String, Object>(client))) {
            TopicLayout.createIfMissing(admin, new NewTopic(topic, 1, (short) 1), Duration.ofSeconds(30));
            // Scenario 2's second window writes each connection's publishes to its own monitor, so its own
            // one-partition topic: every record is a batch of its own in the broker, as it is here.
            List<String> perThread = new ArrayList<>();
            for (int t = 0; t < sizes.connections(); t++) {
                perThread.add(topic + "-t" + t);
            }
            for (String each : perThread) {
                TopicLayout.createIfMissing(admin, new NewTopic(each, 1, (short) 1), Duration.ofSeconds(30));
            }
            try (KafkaProducer<byte[], byte[]> producer = producer(client)) {
                ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>(topic, null, sample.key(), sample.value(), sample.headers());
                sync(out.putObject("sync_1_thread"), producer, List.of(record), sizes, 1);
                sync(out.putObject("sync_16_threads"), producer, List.of(record), sizes, sizes.connections());
                List<ProducerRecord<byte[], byte[]>> own = new ArrayList<>();
                for (String each : perThread) {
                    own.add(new ProducerRecord<>(each, null, sample.key(), sample.value(), sample.headers()));
                }
                sync(out.putObject("sync_16_threads_16_topics"), producer, own, sizes, sizes.connections());
                pipelined(out.putObject("pipelined"), producer, record, sizes);
            } finally {
                List<String> all = new ArrayList<>(perThread);
                all.add(topic);
                admin.deleteTopics(all).all().get(30, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new BenchError("the raw producer's topic: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
        return out;
    }

    /** {@code threadCount} threads, each sending and waiting; thread t sends records' t-th (modulo their number). */
    private static void sync(
            ObjectNode out,
            KafkaProducer<byte[], byte[]> producer,
            List<ProducerRecord<byte[], byte[]>> records,
            Scenarios.Sizes sizes,
            int threadCount)
            throws InterruptedException {
        long start = System.nanoTime();
        long from = start + sizes.warm().toNanos();
        long end = from + sizes.window().toNanos();
        AtomicLong errors = new AtomicLong();
        List<Latencies> parts = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            Latencies lat = new Latencies();
            parts.add(lat);
            ProducerRecord<byte[], byte[]> record = records.get(t % records.size());
            Thread th = new Thread(() -> {
                for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                    try {
                        producer.send(record).get();
                        if (now >= from) {
                            lat.add(System.nanoTime() - now);
                        }
                    } catch (ExecutionException e) {
                        errors.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        Load.sleepUntil(from);
        double c0 = Load.clientCpuSeconds();
        Load.sleepUntil(end);
        double c1 = Load.clientCpuSeconds();
        for (Thread th : threads) {
            th.join();
        }
        Latencies all = Latencies.merge(parts);
        out.put("records_per_s", Math.round(all.size() / (sizes.window().toNanos() / 1e9)));
        all.describe(out, "");
        out.put("errors", errors.get());
        out.put("producer_cpu_s", Latencies.round(c1 - c0));
    }

    static void pipelined(
            ObjectNode out,
            KafkaProducer<byte[], byte[]> producer,
            ProducerRecord<byte[], byte[]> record,
            Scenarios.Sizes sizes)
            throws InterruptedException {
        pipelined(out, producer, record, sizes, null);
    }

    /**
     * Up to 4,096 records in flight for the warm-up and then the window; with {@code server}, its CPU seconds in the
     * window too (the broker's share of a record when nothing else runs).
     */
    static void pipelined(
            ObjectNode out,
            KafkaProducer<byte[], byte[]> producer,
            ProducerRecord<byte[], byte[]> record,
            Scenarios.Sizes sizes,
            Target server)
            throws InterruptedException {
        Semaphore inFlight = new Semaphore(4096);
        AtomicLong acked = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long start = System.nanoTime();
        long from = start + sizes.warm().toNanos();
        long end = from + sizes.window().toNanos();
        long ackedAtFrom = -1;
        double cpuAtFrom = Double.NaN;
        for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
            if (ackedAtFrom < 0 && now >= from) {
                ackedAtFrom = acked.get();
                cpuAtFrom = server != null ? server.cpuSeconds() : Double.NaN;
            }
            inFlight.acquire();
            producer.send(record, (md, e) -> {
                if (e != null) {
                    errors.incrementAndGet();
                } else {
                    acked.incrementAndGet();
                }
                inFlight.release();
            });
        }
        long ackedAtEnd = acked.get();
        double cpuAtEnd = server != null ? server.cpuSeconds() : Double.NaN;
        producer.flush();
        out.put(
                "records_per_s",
                Math.round((ackedAtEnd - ackedAtFrom) / (sizes.window().toNanos() / 1e9)));
        out.put("errors", errors.get());
        if (server != null && server.started()) {
            out.put("window_s", Latencies.round(sizes.window().toNanos() / 1e9));
            out.put("server_cpu_s", Latencies.round(cpuAtEnd - cpuAtFrom));
            out.put(
                    "server_cpu_us_per_record",
                    Latencies.round((cpuAtEnd - cpuAtFrom) * 1e6 / (ackedAtEnd - ackedAtFrom)));
        }
    }

    /**
     * Appends {@code n} copies of the monitor's last record to its own log, as fast as the broker takes them: the
     * bytes the gateway wrote for a publish, each with a fresh {@code ce_id} (the follower indexes writes by it).
     * Returns the seconds taken.
     */
    static double fill(Map<String, String> client, String monitorId, long n) {
        String topic = Topics.obs(monitorId);
        ConsumerRecord<byte[], byte[]> sample = lastRecord(client, topic);
        Semaphore inFlight = new Semaphore(4096);
        AtomicLong errors = new AtomicLong();
        long t0 = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = producer(client)) {
            for (long i = 0; i < n; i++) {
                org.apache.kafka.common.header.internals.RecordHeaders headers =
                        new org.apache.kafka.common.header.internals.RecordHeaders();
                for (org.apache.kafka.common.header.Header h : sample.headers()) {
                    headers.add(
                            h.key(),
                            h.key().equals("ce_id")
                                    ? java.util
                                            .UUID
                                            .randomUUID()
                                            .toString()
                                            .getBytes(java.nio.charset.StandardCharsets.UTF_8)
                                    : h.value());
                }
                inFlight.acquire();
                producer.send(new ProducerRecord<>(topic, 0, sample.key(), sample.value(), headers), (md, e) -> {
                    if (e != null) {
                        errors.incrementAndGet();
                    }
                    inFlight.release();
                });
            }
            producer.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchError("interrupted", e);
        }
        if (errors.get() > 0) {
            throw new BenchError(errors.get() + " raw writes to " + topic + " failed");
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** The gateway's producer settings: {@code acks=all}, idempotent, {@code linger.ms=0}. */
    static KafkaProducer<byte[], byte[]> producer(Map<String, String> client) {
        Map<String, Object> p = new java.util.HashMap<>(client);
        p.putAll(Map.of(
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.LINGER_MS_CONFIG,
                0,
                ProducerConfig.CLIENT_ID_CONFIG,
                "mp-bench-raw"));
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static ConsumerRecord<byte[], byte[]> lastRecord(Map<String, String> client, String topic) {
        Map<String, Object> p = new java.util.HashMap<>(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            c.seek(tp, Math.max(0, end - 1));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (System.nanoTime() < until) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    return r;
                }
            }
        }
        throw new BenchError("no record to copy in " + topic);
    }
}
