package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Publications;
import io.monitorbackbone.protocol.Rules;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/** Publishing: an accepted observation is appended; a refused one is appended too, as evidence, and then refused. */
@ApplicationScoped
public class PublishService {
    static final int RAW_TEXT_LIMIT = 256 * 1024;

    private final Tables tables;
    private final Log log;
    private final Clock clock;

    @Inject
    public PublishService(Tables tables, Log log, Clock clock) {
        this.tables = tables;
        this.log = log;
        this.clock = clock;
    }

    /** A body that is not JSON is kept as text, cut at 256 KiB: escaping can make text several times longer. */
    static JsonNode unparsable(byte[] rawBody) {
        String text = new String(rawBody, StandardCharsets.UTF_8);
        return TextNode.valueOf(text.length() > RAW_TEXT_LIMIT ? text.substring(0, RAW_TEXT_LIMIT) : text);
    }

    /**
     * A publish whose body is over the limit is refused before it is read; when it carries the owner's token it is still
     * evidence, recorded without its body. Always throws the TOO_LARGE refusal.
     */
    public Reply refuseTooLarge(String monitorId, String bearer, ProtocolException tooLarge, long bytes) {
        Monitor monitor = tables.monitor(monitorId);
        if (monitor != null && monitor.ownerIs(bearer)) {
            Draft row = ProtocolRows.rejected(monitor, tooLarge, Json.MAPPER.nullNode(), monitor.owner(), null, clock.instant());
            ((ObjectNode) row.data().get("payload")).put("bytes", bytes);
            tooLarge.with("rejected_seq", log.append(monitorId, row));
        }
        throw tooLarge;
    }

    /**
     * Tells the leases service, durably and before the observation is acknowledged, that this monitor published the
     * subject: its index of claimable subjects must outlive the log's retention. Repeats this gateway has just seen are
     * skipped; a repeat that slips through is harmless.
     */
    private void markPublished(String monitorId, Draft draft) {
        if (draft.subject() != null && !tables.tail(monitorId).publishedRecently(draft.subject())) {
            tables.putText(io.monitorbackbone.binding.Topics.LEASE_SUBJECTS,
                    io.monitorbackbone.protocol.lease.LeaseCommand.key(monitorId, draft.subject()), draft.horizon());
        }
    }

    public Reply publish(String monitorId, String bearer, byte[] rawBody) {
        Monitor monitor = tables.monitor(monitorId);
        if (monitor == null || !monitor.visibleTo(bearer)) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "monitor not found");
        }
        if (!monitor.ownerIs(bearer)) {
            throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "owner bearer token required");
        }
        Instant now = clock.instant();
        ObjectNode body = null;
        try {
            body = Json.parseBody(rawBody);
            if (!monitor.active()) {
                String reason = monitor.retired() ? "retired" : "paused";
                throw ProtocolException.of(ErrorCode.UNAVAILABLE, monitor.retired()
                                ? "the monitor is retired; it no longer accepts observations"
                                : "the monitor is paused; resume it")
                        .with("live", Map.of("value", false, "reason", reason));
            }
            Draft draft = Publications.resolve(monitor, body, now);
            markPublished(monitorId, draft);
            long seq = log.append(monitorId, draft);
            // Reactions are appended before the reply, so an acknowledged publish never lacks the rows its rules owe.
            for (Draft reaction : Rules.reactions(monitor, draft, seq, now)) {
                log.append(monitorId, reaction);
            }
            ObjectNode reply = Json.object();
            reply.set("observation", draft.served(monitorId, seq, false));
            reply.put("seq", seq);
            return Reply.of(201, reply);
        } catch (ProtocolException refusal) {
            JsonNode raw = body != null ? body : unparsable(rawBody);
            String actor = body != null && body.path("actor").isTextual() ? body.get("actor").asText() : monitor.owner();
            String subject = body != null && body.path("subject").isTextual() ? body.get("subject").asText() : null;
            long rejectedSeq = log.append(monitorId, ProtocolRows.rejected(monitor, refusal, raw, actor, subject, now));
            throw refusal.with("rejected_seq", rejectedSeq);
        }
    }
}
