package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Seq;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Every write the gateway makes, each returning only once Kafka has acknowledged it ({@code acks=all}). */
public final class LogWriter {
    private static final long ACK_TIMEOUT_SECONDS = 35;

    private final KafkaProducer<String, byte[]> producer;

    public LogWriter(KafkaProducer<String, byte[]> producer) {
        this.producer = producer;
    }

    /** Appends an observation to its monitor's log and returns the seq the broker gave it. */
    public long append(String monitorId, Draft draft) {
        return Seq.fromOffset(await(ObservationCodec.encode(Topics.obs(monitorId), monitorId, null, draft)).offset());
    }

    /** Writes the latest value of a key in a compacted table. */
    public void put(String table, String key, Object value) {
        await(new ProducerRecord<>(table, key, Json.bytes(value)));
    }

    /** A plain text value, for topics other apps read with a string serde. */
    public void putText(String topic, String key, String value) {
        await(new ProducerRecord<>(topic, key, value.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private RecordMetadata await(ProducerRecord<String, byte[]> record) {
        try {
            return producer.send(record).get(ACK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerFault("interrupted while waiting for Kafka to acknowledge a write to " + record.topic(), e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new ServerFault("Kafka did not acknowledge the write to " + record.topic() + ": " + cause, cause);
        }
    }
}
