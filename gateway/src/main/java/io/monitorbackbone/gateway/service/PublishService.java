package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Publications;
import io.monitorbackbone.protocol.Rules;
import io.monitorbackbone.protocol.request.Publish;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Publishing: an accepted observation is appended; a refused one is appended too, as evidence, and then refused. No
 * thread waits for Kafka: each answer is a stage completed from the acknowledgements of its writes.
 */
@ApplicationScoped
public class PublishService {
    static final int RAW_TEXT_LIMIT = 256 * 1024;

    private final Tables tables;
    private final Log log;
    private final Work work;
    private final Clock clock;
    private Metrics metrics = Metrics.none();

    @Inject
    public PublishService(Tables tables, Log log, Work work, Clock clock) {
        this.tables = tables;
        this.log = log;
        this.work = work;
        this.clock = clock;
    }

    @Inject
    void metrics(Metrics metrics) {
        this.metrics = metrics;
    }

    /** A body that is not JSON is kept as text, cut at 256 KiB: escaping can make text several times longer. */
    static JsonNode unparsable(byte[] rawBody) {
        String text = new String(rawBody, StandardCharsets.UTF_8);
        return TextNode.valueOf(text.length() > RAW_TEXT_LIMIT ? text.substring(0, RAW_TEXT_LIMIT) : text);
    }

    /**
     * A publish whose body is over the limit is refused before it is read; when it carries the owner's token it is still
     * evidence, recorded without its body. The stage always fails with the TOO_LARGE refusal, once the row it names in
     * {@code rejected_seq} is acknowledged.
     */
    public CompletionStage<Reply> refuseTooLarge(
            String monitorId, String bearer, ProtocolException tooLarge, long bytes) {
        return measured(metrics.start(), refuseUnread(monitorId, bearer, tooLarge, bytes));
    }

    private CompletionStage<Reply> refuseUnread(
            String monitorId, String bearer, ProtocolException tooLarge, long bytes) {
        try {
            Monitor monitor = tables.monitor(monitorId);
            if (monitor == null || !monitor.ownerIs(bearer)) {
                return CompletableFuture.failedFuture(tooLarge);
            }
            Draft row = ProtocolRows.rejected(
                    monitor, tooLarge, Json.MAPPER.nullNode(), monitor.owner(), null, clock.instant());
            ((ObjectNode) row.data().get("payload")).put("bytes", bytes);
            return unwrapped(log.appendAsync(monitorId, row)
                    .thenCompose(seq -> CompletableFuture.failedFuture(tooLarge.with("rejected_seq", seq))));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Tells the leases service, durably and before the observation is acknowledged, that this monitor published the
     * subject: its index of claimable subjects must outlive the log's retention. Repeats this gateway has just seen or
     * marked itself are skipped; a repeat that slips through is harmless.
     */
    private CompletableFuture<Void> markPublished(String monitorId, Draft draft) {
        // Peeked, not followed: a gateway taking publishes reads back none of them unless its readers need the log.
        Tables.Tail tail = tables.peek(monitorId);
        if (draft.subject() == null || tail.publishedRecently(draft.subject())) {
            return CompletableFuture.completedFuture(null);
        }
        return tables.putTextAsync(
                        io.monitorbackbone.binding.Topics.LEASE_SUBJECTS,
                        io.monitorbackbone.protocol.lease.LeaseCommand.key(monitorId, draft.subject()),
                        draft.horizon())
                .thenRun(() -> tail.published(draft.subject()));
    }

    /**
     * Publishes one observation. The stage completes with the 201 reply once Kafka has acknowledged, in this order, the
     * lease-subject mark, the observation and each reaction its rules owe; it fails with the refusal (a refused publish
     * is appended as a {@code rejected} row first, named by {@code rejected_seq}) or with a {@code ServerFault}. Nothing
     * waits in between: each write starts from the previous one's acknowledgement.
     */
    public CompletionStage<Reply> publish(String monitorId, String bearer, byte[] rawBody) {
        return measured(metrics.start(), publishOnce(monitorId, bearer, rawBody));
    }

    /** Counted and timed once the answer is known: Kafka acknowledged every row, or the publish was refused. */
    private CompletionStage<Reply> measured(long start, CompletionStage<Reply> answer) {
        return answer.whenComplete((reply, failure) -> metrics.published(start, failure));
    }

    private CompletionStage<Reply> publishOnce(String monitorId, String bearer, byte[] rawBody) {
        try {
            Monitor known = tables.monitor(monitorId);
            if (known != null && known.visibleTo(bearer)) {
                return unwrapped(accept(known, monitorId, bearer, rawBody));
            }
            // A miss is decided only after catching up with the monitors table (Access.visibleMonitor), which waits on
            // the broker: on a worker, never on the event loop this publish runs on.
            return unwrapped(CompletableFuture.supplyAsync(
                            () -> Access.visibleMonitor(tables, monitorId, bearer, "monitor not found"), work)
                    .thenCompose(monitor -> accept(monitor, monitorId, bearer, rawBody)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<Reply> accept(Monitor monitor, String monitorId, String bearer, byte[] rawBody) {
        if (!monitor.ownerIs(bearer)) {
            throw ProtocolException.ownerTokenRequired();
        }
        Instant now = clock.instant();
        ObjectNode body = null;
        Draft draft;
        try {
            body = Json.parseBody(rawBody);
            if (!monitor.active()) {
                String reason = monitor.retired() ? "retired" : "paused";
                throw ProtocolException.of(
                                ErrorCode.UNAVAILABLE,
                                monitor.retired()
                                        ? "the monitor is retired; it no longer accepts observations"
                                        : "the monitor is paused; resume it")
                        .with("live", Map.of("value", false, "reason", reason));
            }
            draft = Publications.resolve(monitor, Publish.parse(body), now);
        } catch (ProtocolException refusal) {
            JsonNode raw = body != null ? body : unparsable(rawBody);
            String actor = body != null && body.path("actor").isTextual()
                    ? body.get("actor").asText()
                    : monitor.owner();
            String subject = body != null && body.path("subject").isTextual()
                    ? body.get("subject").asText()
                    : null;
            return log.appendAsync(monitorId, ProtocolRows.rejected(monitor, refusal, raw, actor, subject, now))
                    .thenCompose(
                            rejectedSeq -> CompletableFuture.failedFuture(refusal.with("rejected_seq", rejectedSeq)));
        }
        return markPublished(monitorId, draft)
                .thenCompose(marked -> log.appendAsync(monitorId, draft))
                // Reactions are appended before the reply, so an acknowledged publish never lacks the rows its rules
                // owe.
                .thenCompose(seq -> appendInOrder(monitorId, Rules.reactions(monitor, draft, seq, now))
                        .thenApply(done -> {
                            ObjectNode reply = Json.object();
                            reply.set("observation", draft.served(monitorId, seq, false));
                            reply.put("seq", seq);
                            return Reply.of(201, reply);
                        }));
    }

    /** Each row once the one before it is acknowledged, as the log must hold them in this order. */
    private CompletableFuture<Void> appendInOrder(String monitorId, List<Draft> rows) {
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (Draft row : rows) {
            chain = chain.thenCompose(
                    previous -> log.appendAsync(monitorId, row).thenApply(seq -> null));
        }
        return chain;
    }

    /** The stage fails with the refusal or fault itself, not the {@link CompletionException} that composition wraps it in. */
    private static <T> CompletableFuture<T> unwrapped(CompletableFuture<T> stage) {
        CompletableFuture<T> out = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            if (failure == null) {
                out.complete(value);
            } else {
                out.completeExceptionally(
                        failure instanceof CompletionException && failure.getCause() != null
                                ? failure.getCause()
                                : failure);
            }
        });
        return out;
    }
}
