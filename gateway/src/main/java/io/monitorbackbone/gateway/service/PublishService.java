package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
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
import io.monitorbackbone.protocol.request.PublishBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
                throw inactive(monitor);
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

    /**
     * Publishes a batch ({@code io.monitorbackbone/batch-publish}): {@code {"observations": [...]}}, each item the body
     * of one publish, checked and recorded exactly as {@link #publish} checks and records it (a refused item is a
     * {@code rejected} row). The stage completes with {@code 200 {results, accepted, rejected, failed}}, one result per
     * item in its order ({@code {status: 201, seq}} or the item's protocol error with its {@code status} and
     * {@code rejected_seq}), only once Kafka has acknowledged every row of the batch: the lease-subject marks first,
     * then every item's row in item order, pipelined, then the reactions its rules owe, in item order. A batch that is
     * not one (no array, none or too many items) is refused whole and recorded as one rejected row, as a single publish
     * records a body it cannot read.
     */
    public CompletionStage<Reply> publishBatch(String monitorId, String bearer, byte[] rawBody) {
        long start = metrics.start();
        // Each item is counted in its answer; a batch refused or failed whole counts as one publish.
        return batchOnce(monitorId, bearer, rawBody, start).whenComplete((reply, failure) -> {
            if (failure != null) {
                metrics.published(start, failure);
            }
        });
    }

    private CompletionStage<Reply> batchOnce(String monitorId, String bearer, byte[] rawBody, long start) {
        try {
            Monitor known = tables.monitor(monitorId);
            if (known != null && known.visibleTo(bearer)) {
                return unwrapped(acceptBatch(known, monitorId, bearer, rawBody, start));
            }
            return unwrapped(CompletableFuture.supplyAsync(
                            () -> Access.visibleMonitor(tables, monitorId, bearer, "monitor not found"), work)
                    .thenCompose(monitor -> acceptBatch(monitor, monitorId, bearer, rawBody, start)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** One item of a batch: the draft to append, and the refusal it answers with when the draft is its rejected row. */
    private record Item(Draft row, ProtocolException refusal) {}

    private CompletableFuture<Reply> acceptBatch(
            Monitor monitor, String monitorId, String bearer, byte[] rawBody, long start) {
        if (!monitor.ownerIs(bearer)) {
            throw ProtocolException.ownerTokenRequired();
        }
        Instant now = clock.instant();
        ObjectNode body = null;
        PublishBatch batch;
        try {
            body = Json.parseBody(rawBody);
            batch = PublishBatch.parse(body);
        } catch (ProtocolException refusal) {
            boolean tooMany = refusal.code() == ErrorCode.TOO_LARGE;
            // Too many items: recorded without them (as a body over the byte limit is), else as sent.
            JsonNode raw = tooMany ? Json.MAPPER.nullNode() : body != null ? body : unparsable(rawBody);
            Draft row = ProtocolRows.rejected(monitor, refusal, raw, monitor.owner(), null, now);
            if (tooMany) {
                ((ObjectNode) row.data().get("payload")).put("bytes", rawBody.length);
            }
            return log.appendAsync(monitorId, row)
                    .thenCompose(seq -> CompletableFuture.<Reply>failedFuture(refusal.with("rejected_seq", seq)));
        }
        List<Item> items = new ArrayList<>(batch.items().size());
        for (JsonNode item : batch.items()) {
            items.add(item(monitor, item, now));
        }
        // The marks of the subjects first, all acknowledged before any observation is written (as for one publish).
        Set<String> subjects = new LinkedHashSet<>();
        List<CompletableFuture<Void>> marks = new ArrayList<>();
        for (Item item : items) {
            Draft d = item.row();
            if (item.refusal() == null && d.subject() != null && subjects.add(d.subject())) {
                marks.add(markPublished(monitorId, d));
            }
        }
        return CompletableFuture.allOf(marks.toArray(CompletableFuture[]::new)).thenCompose(marked -> {
            return log.appendAllAsync(monitorId, items.stream().map(Item::row).toList())
                    .thenCompose(seqs -> {
                        List<Draft> reactions = new ArrayList<>();
                        List<Integer> owner = new ArrayList<>();
                        for (int i = 0; i < items.size(); i++) {
                            Item item = items.get(i);
                            if (item.refusal() == null && seqs.failure(i) == null) {
                                for (Draft r : Rules.reactions(monitor, item.row(), seqs.seq(i), now)) {
                                    reactions.add(r);
                                    owner.add(i);
                                }
                            }
                        }
                        return log.appendAllAsync(monitorId, reactions)
                                .thenApply(reacted -> batchReply(items, seqs, reacted, owner, start));
                    });
        });
    }

    private Item item(Monitor monitor, JsonNode item, Instant now) {
        try {
            if (!item.isObject()) {
                throw PublishBatch.notAnObject();
            }
            if (!monitor.active()) {
                throw inactive(monitor);
            }
            return new Item(Publications.resolve(monitor, Publish.parse((ObjectNode) item), now), null);
        } catch (ProtocolException refusal) {
            String actor = item.path("actor").isTextual() ? item.get("actor").asText() : monitor.owner();
            String subject =
                    item.path("subject").isTextual() ? item.get("subject").asText() : null;
            return new Item(ProtocolRows.rejected(monitor, refusal, item, actor, subject, now), refusal);
        }
    }

    private Reply batchReply(
            List<Item> items, Log.Appended seqs, Log.Appended reacted, List<Integer> reactionOwner, long start) {
        Throwable[] reactionFailure = new Throwable[items.size()];
        for (int r = 0; r < reacted.size(); r++) {
            Throwable f = reacted.failure(r);
            if (f != null && reactionFailure[reactionOwner.get(r)] == null) {
                reactionFailure[reactionOwner.get(r)] = f;
            }
        }
        ObjectNode reply = Json.object();
        ArrayNode results = reply.putArray("results");
        int accepted = 0;
        int rejected = 0;
        int failed = 0;
        for (int i = 0; i < items.size(); i++) {
            Item item = items.get(i);
            Throwable failure = seqs.failure(i);
            if (failure == null) {
                failure = reactionFailure[i];
            }
            Throwable outcome;
            if (failure != null) {
                ProtocolException fault = io.monitorbackbone.protocol.Failures.protocolError(failure);
                results.add(fault.toJson().put("status", fault.status()));
                failed++;
                outcome = failure;
            } else if (item.refusal() != null) {
                ProtocolException refusal = item.refusal().with("rejected_seq", seqs.seq(i));
                results.add(refusal.toJson().put("status", refusal.status()));
                rejected++;
                outcome = refusal;
            } else {
                results.addObject().put("status", 201).put("seq", seqs.seq(i));
                accepted++;
                outcome = null;
            }
            metrics.published(start, outcome);
        }
        reply.put("accepted", accepted);
        reply.put("rejected", rejected);
        reply.put("failed", failed);
        return Reply.of(200, reply);
    }

    private static ProtocolException inactive(Monitor monitor) {
        String reason = monitor.retired() ? "retired" : "paused";
        return ProtocolException.of(
                        ErrorCode.UNAVAILABLE,
                        monitor.retired()
                                ? "the monitor is retired; it no longer accepts observations"
                                : "the monitor is paused; resume it")
                .with("live", Map.of("value", false, "reason", reason));
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
