package io.monitorbackbone.leases;

import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

import java.nio.charset.StandardCharsets;

/**
 * Reads the monitors' logs for the one fact leases need: which subjects each monitor has published. Only the
 * {@code ce_*} headers are read, never the data. Protocol rows (leases, rejections, ...) do not count: a subject
 * becomes claimable when a user observation names it.
 */
final class PublishedSubjects implements Processor<byte[], byte[], String, String> {
    private final String obsPrefix;
    private ProcessorContext<String, String> context;

    PublishedSubjects(String obsPrefix) {
        this.obsPrefix = obsPrefix;
    }

    @Override
    public void init(ProcessorContext<String, String> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        String type = header(record.headers(), "ce_type");
        String subject = header(record.headers(), "ce_subject");
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
        if (type == null || subject == null || type.startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX)
                || !topic.startsWith(obsPrefix)) {
            return;
        }
        String horizon = header(record.headers(), "ce_horizon");
        String monitor = topic.substring(obsPrefix.length());
        context.forward(new Record<>(LeaseCommand.key(monitor, subject), horizon == null ? "" : horizon,
                record.timestamp()));
    }

    static String header(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
