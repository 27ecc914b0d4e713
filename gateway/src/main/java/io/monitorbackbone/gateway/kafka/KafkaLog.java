package io.monitorbackbone.gateway.kafka;

import io.monitorbackbone.gateway.service.Log;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@link Log} over the monitors' partitions: appends by the {@link LogWriter}, reads by the {@link LogReader}, catch-up
 * folds by the {@link LogFold}.
 */
final class KafkaLog implements Log {
    private final LogReader reader;
    private final LogFold fold;
    private final LogWriter writer;

    KafkaLog(LogReader reader, LogFold fold, LogWriter writer) {
        this.reader = reader;
        this.fold = fold;
        this.writer = writer;
    }

    @Override
    public long append(String monitorId, Draft draft) {
        return writer.append(monitorId, draft);
    }

    @Override
    public CompletableFuture<Long> appendAsync(String monitorId, Draft draft) {
        return writer.appendAsync(monitorId, draft);
    }

    @Override
    public CompletableFuture<Appended> appendAllAsync(String monitorId, List<Draft> drafts) {
        return writer.appendAllAsync(monitorId, drafts);
    }

    @Override
    public Bounds bounds(String monitorId) {
        return reader.bounds(monitorId);
    }

    @Override
    public Map<String, Bounds> bounds(Collection<String> monitorIds) {
        return reader.bounds(monitorIds);
    }

    @Override
    public Stamped firstAtOrAfter(String monitorId, Instant time) {
        return reader.firstAtOrAfter(monitorId, time);
    }

    @Override
    public Page read(String monitorId, long fromSeq, Filter filter, int limit, boolean count) {
        return reader.read(monitorId, fromSeq, filter, limit, count, null);
    }

    @Override
    public Page count(String monitorId, long fromSeq, Filter filter, Bounds bounds) {
        return reader.read(monitorId, fromSeq, filter, 0, true, bounds);
    }

    @Override
    public Aggregate foldFrom(String monitorId, Aggregate base, long head, int maxRecords) {
        return fold.from(monitorId, base, head, maxRecords);
    }
}
