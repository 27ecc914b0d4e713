package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.gateway.service.LogAdmin;
import io.monitorbackbone.protocol.ServerFault;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;

/** {@link LogAdmin} with this process's admin client and topic layout ({@link KafkaRuntime}). */
final class KafkaLogAdmin implements LogAdmin {
    private final KafkaRuntime kafka;

    KafkaLogAdmin(KafkaRuntime kafka) {
        this.kafka = kafka;
    }

    @Override
    public Created createLog(String monitorId, Long retentionSeconds) {
        try {
            kafka.admin()
                    .createTopics(List.of(kafka.monitorLogTopic(monitorId, retentionSeconds)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            return Created.NEW;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return Created.EXISTING;
            }
            if (e.getCause() instanceof InvalidTopicException) {
                // The id is valid, so Kafka refused it for colliding with a topic that differs only in '.' versus '_'.
                return Created.COLLIDING;
            }
            throw new ServerFault("Kafka could not create the monitor's log: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerFault("interrupted while creating the monitor's log", e);
        } catch (TimeoutException e) {
            throw new ServerFault("Kafka did not create the monitor's log in time", e);
        }
    }

    @Override
    public void setRetention(String monitorId, Long retentionSeconds) {
        kafka.setRetention(monitorId, retentionSeconds);
    }

    @Override
    public void deleteBefore(Map<String, Long> offsetByMonitor) {
        if (offsetByMonitor.isEmpty()) {
            return;
        }
        Map<TopicPartition, RecordsToDelete> deletions = new HashMap<>();
        offsetByMonitor.forEach((id, offset) ->
                deletions.put(new TopicPartition(Topics.obs(id), 0), RecordsToDelete.beforeOffset(offset)));
        try {
            kafka.admin().deleteRecords(deletions).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerFault("interrupted while compacting", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new ServerFault("Kafka did not delete the records: " + e, e);
        }
    }

    @Override
    public Fence openCreate(String monitorId) {
        try {
            return kafka.createFence(monitorId);
        } catch (KafkaException e) {
            throw new ServerFault("Kafka did not open the create: " + e, e);
        }
    }
}
