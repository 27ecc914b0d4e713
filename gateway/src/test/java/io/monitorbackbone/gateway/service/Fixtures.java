package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Tokens;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Monitors and subscriptions for the services' unit tests, with fixed tokens and times. */
final class Fixtures {
    static final String OWNER_TOKEN = "owner-token";
    static final String READER_TOKEN = "reader-token";
    static final String AT = "2026-12-01T12:00:00Z";

    private Fixtures() {}

    static JsonNode json(String text) {
        return Json.read(text.getBytes(StandardCharsets.UTF_8));
    }

    static ObjectNode object(String text) {
        return (ObjectNode) json(text);
    }

    static Monitor monitor(String id, String visibility, String filter, List<String> types) {
        return new Monitor(
                id,
                id,
                null,
                1,
                "human:owner",
                null,
                filter == null ? null : json(filter),
                "minute",
                List.of("observe"),
                null,
                null,
                null,
                null,
                visibility,
                null,
                types,
                false,
                List.of("observe"),
                AT,
                AT,
                false,
                false,
                Tokens.hash(OWNER_TOKEN),
                null,
                null,
                null);
    }

    static Subscription subscription(String id, String monitorId, String filter, String resetPolicy) {
        return new Subscription(
                id,
                monitorId,
                "agent:reader",
                filter == null ? Json.object() : json(filter),
                List.of("observe"),
                resetPolicy,
                "pull",
                null,
                null,
                AT,
                true,
                Tokens.hash(READER_TOKEN));
    }
}
