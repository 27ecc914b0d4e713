package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/** A protocol answer before it meets HTTP: a status, a JSON body and any extra headers. */
public record Reply(int status, JsonNode body, Map<String, String> headers) {
    public static Reply of(int status, JsonNode body) {
        return new Reply(status, body, Map.of());
    }
}
