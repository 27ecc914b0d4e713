package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.LogAdmin;
import io.monitorbackbone.protocol.Json;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;

/**
 * The one create of a monitor id that may finish (docs/adr/0011-atomic-create.md): a transactional producer whose
 * {@code transactional.id} names the id. Opening it fences every earlier create of the same id, in any gateway, so
 * that only the latest one can commit the definition; a create cut short by a crash is thereby taken over by its
 * retry. The definition is the create's commit point and the only record written in the transaction.
 */
public final class CreateFence implements LogAdmin.Fence {
    private final KafkaProducer<String, byte[]> producer;
    private KafkaException failure;

    CreateFence(KafkaProducer<String, byte[]> producer) {
        this.producer = producer;
    }

    /** Fences every earlier create of this id (their open transaction is aborted); blocks until Kafka has. */
    static CreateFence open(KafkaProducer<String, byte[]> producer) {
        try {
            producer.initTransactions();
            return new CreateFence(producer);
        } catch (RuntimeException e) {
            producer.close(java.time.Duration.ZERO);
            throw e;
        }
    }

    /** Writes the definition in a transaction of its own and commits it. */
    @Override
    public Outcome commit(String table, String key, Object value) {
        try {
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(table, key, Json.bytes(value)));
            producer.commitTransaction();
            return Outcome.COMMITTED;
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            failure = e;
            return Outcome.FENCED;
        } catch (InvalidTxnStateException e) {
            failure = e;
            return Outcome.ABORTED;
        } catch (KafkaException e) {
            failure = e;
            return Outcome.UNKNOWN;
        }
    }

    /** Why the last commit did not report {@link Outcome#COMMITTED}. */
    @Override
    public KafkaException failure() {
        return failure;
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(5));
    }
}
