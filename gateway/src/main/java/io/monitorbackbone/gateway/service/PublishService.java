package io.monitorbackbone.gateway.service;

import io.monitorbackbone.gateway.kafka.Catalog;
import io.monitorbackbone.gateway.kafka.LogWriter;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.Publications;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/** Publishing: an accepted observation is appended; a refused one is appended too, as evidence, and then refused. */
public final class PublishService {
    private final Catalog catalog;
    private final LogWriter writer;
    private final Clock clock;

    public PublishService(Catalog catalog, LogWriter writer, Clock clock) {
        this.catalog = catalog;
        this.writer = writer;
        this.clock = clock;
    }

    public Reply publish(String monitorId, String bearer, byte[] rawBody) {
        Monitor monitor = catalog.monitor(monitorId);
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
            long seq = writer.append(monitorId, draft);
            ObjectNode reply = Json.object();
            reply.set("observation", draft.served(monitorId, seq, false));
            reply.put("seq", seq);
            return Reply.of(201, reply);
        } catch (ProtocolException refusal) {
            JsonNode raw = body != null ? body : TextNode.valueOf(new String(rawBody, StandardCharsets.UTF_8));
            String actor = body != null && body.path("actor").isTextual() ? body.get("actor").asText() : monitor.owner();
            String subject = body != null && body.path("subject").isTextual() ? body.get("subject").asText() : null;
            long rejectedSeq = writer.append(monitorId, ProtocolRows.rejected(monitor, refusal, raw, actor, subject, now));
            throw refusal.with("rejected_seq", rejectedSeq);
        }
    }
}
