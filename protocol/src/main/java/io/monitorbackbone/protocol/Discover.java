package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** What {@code GET /mp/v0/discover} says: the protocol version, what this server does, and its bounds. */
public final class Discover {
    private Discover() {}

    public static ObjectNode document() {
        ObjectNode d = Json.object();
        d.set("supportedVersions", Json.array(List.of("0.1")));
        d.put("protocol", "monitor-protocol");
        ObjectNode caps = d.putObject("capabilities");
        ObjectNode monitors = caps.putObject("monitors");
        monitors.put("listChanged", false);
        monitors.put("publish", true);
        ObjectNode feeds = caps.putObject("feeds");
        feeds.put("pull", true);
        feeds.put("http", true);
        feeds.put("mcp", true);
        feeds.put("sse", true);
        // Beyond the reference server: a replay (?cursor=) starting at most one past the delivered mark raises it too,
        // so redelivered=false means never handed out, also for what mp watch read on from its last NEXT.
        feeds.put("replay_marks_delivered", true);
        ObjectNode leases = caps.putObject("leases");
        leases.put("delivery_count_limit", Limits.DELIVERY_COUNT_LIMIT);
        ObjectNode duration = leases.putObject("lease_duration_seconds");
        duration.put("min", io.monitorbackbone.protocol.lease.LeaseCommand.MIN_LEASE_DURATION_SECONDS);
        duration.put("max", io.monitorbackbone.protocol.lease.LeaseCommand.MAX_LEASE_DURATION_SECONDS);
        duration.put("default", io.monitorbackbone.protocol.lease.LeaseCommand.DEFAULT_LEASE_DURATION_SECONDS);
        ObjectNode extensions = caps.putObject("extensions");
        extensions.putObject("ai.mentu/monitors").put("version", "0.1");
        // A record of a log no reader can decode is served at its seq as this row type and counted, never skipped.
        extensions
                .putObject("io.monitorbackbone/undecodable-rows")
                .put("type", io.monitorbackbone.protocol.Vocabulary.UNDECODABLE)
                .put("counter", "counters.undecodable");
        // A monitor whose source is a Kafka topic: each record becomes one observation, exactly once (docs/adr/0015).
        ObjectNode bridge = extensions.putObject("io.monitorbackbone/kafka-bridge");
        bridge.put("source_kind", io.monitorbackbone.protocol.request.KafkaSource.KIND);
        bridge.put("ref_prefix", io.monitorbackbone.protocol.request.KafkaSource.REF_PREFIX);
        bridge.set("formats", Json.array(io.monitorbackbone.protocol.request.KafkaSource.FORMATS));
        bridge.set("settings", Json.array(io.monitorbackbone.protocol.request.KafkaSource.SETTINGS));
        bridge.put("dead_letters", "mp.bridge.dead-letters");
        // A missing source topic: a row in the log, folded into the stale_source gap with its reason.
        bridge.put("source_status_type", io.monitorbackbone.protocol.Vocabulary.BRIDGE_SOURCE);
        // Each bridged monitor's lag and counts, for the admin token (computed from Kafka on request).
        bridge.put("lag_path", "/mp/v0/admin/bridges");
        // Why a gap is there, where the server knows more than the gap's name.
        extensions
                .putObject("io.monitorbackbone/gap-reasons")
                .put("field", "confidence.gap_reasons")
                .set("gaps", Json.array(java.util.List.of("stale_source")));
        // A seek (and a subscription's from) by time: the first record whose Kafka timestamp is at or after it.
        ObjectNode byTime = extensions.putObject("io.monitorbackbone/seek-by-time");
        byTime.set("fields", Json.array(List.of("seek.time", "subscribe.from.time")));
        byTime.put("format", "RFC 3339 date-time with a zone");
        byTime.put("timestamp", "append");
        byTime.put("before_retention_floor", "CURSOR_EXPIRED");
        // Webhook push (protocol "http"): what the subscribe answer and the subscription carry beyond the protocol.
        ObjectNode push = extensions.putObject("io.monitorbackbone/webhook-push");
        push.put("signature", "standard-webhooks-v1");
        push.put("secret_field", "push_secret");
        push.put("state_field", "push");
        push.put("webhook_id", "<subscription>_<seq>");
        push.put("disabled_on_status", 410);
        push.put("dead_letter_type", io.monitorbackbone.protocol.Vocabulary.LEASE);
        push.put("actor", "system:push");
        // The REST binding described as OpenAPI 3.1, the protocol's JSON schemas as its components.
        extensions
                .putObject("io.monitorbackbone/openapi")
                .put("path", "/mp/v0/openapi.json")
                .put("version", "3.1.0");
        // A web console at / (static files, a client of this API like any other); a page this server served may call
        // the API from its own origin without MP_ALLOW_ORIGIN.
        extensions.putObject("io.monitorbackbone/web-console").put("path", "/").put("same_origin_api", true);
        // Many observations in one request, each answered in order (its seq or its refusal), once Kafka acknowledged
        // all.
        ObjectNode batch = extensions.putObject("io.monitorbackbone/batch-publish");
        batch.put("path", "/mp/v0/monitors/{id}/observations/batch");
        batch.put("method", "monitors/publish_batch");
        batch.put("field", "observations");
        batch.put("max_observations", Limits.MAX_BATCH_OBSERVATIONS);
        batch.put("max_bytes", Limits.MAX_BATCH_BYTES);
        // A reader that asks may read pages beyond max_limit; one that does not is clamped to max_limit.
        extensions
                .putObject("io.monitorbackbone/large-pages")
                .put("param", Limits.LARGE_PAGES)
                .put("max_limit", Limits.LARGE_PAGE_MAX_LIMIT);
        ObjectNode limits = d.putObject("limits");
        limits.put("max_limit", Limits.MAX_LIMIT);
        limits.put("default_limit", Limits.DEFAULT_LIMIT);
        limits.put("max_wait_seconds", Limits.MAX_WAIT_SECONDS);
        limits.put("retire_after_mute_seconds_default", Limits.RETIRE_AFTER_MUTE_SECONDS_DEFAULT);
        limits.put("max_body_bytes", 1_048_576);
        limits.put("max_body_depth", io.monitorbackbone.protocol.Json.MAX_INPUT_NESTING);
        limits.put("seq_scope", "monitor");
        limits.put("max_batch_calls", Limits.MAX_BATCH_CALLS);
        limits.put("max_batch_observations", Limits.MAX_BATCH_OBSERVATIONS);
        limits.put("max_batch_bytes", Limits.MAX_BATCH_BYTES);
        limits.put("monitor_id_pattern", io.monitorbackbone.protocol.Vocabulary.MONITOR_ID.pattern());
        ObjectNode info = d.putObject("serverInfo");
        info.put("name", "monitor-backbone");
        info.put("version", "0.1");
        info.put("implementation", "monitor-backbone");
        d.put("ttlMs", 3_600_000);
        d.put("cacheScope", "public");
        return d;
    }
}
