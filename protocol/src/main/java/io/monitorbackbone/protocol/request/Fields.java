package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;

/** The readings of one body field that several requests share, each with the refusal it has on the wire. */
public final class Fields {
    private Fields() {}

    /** A string field, or {@code fallback} when absent or null; anything else is refused as INVALID. */
    static String optionalText(ObjectNode body, String field, String fallback) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual()) {
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be a string")
                    .with("field", field);
        }
        return v.asText();
    }

    /** A non-negative integer field, or null when absent; anything else is refused as INVALID. */
    public static Long optionalSeconds(ObjectNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw ProtocolException.of(ErrorCode.INVALID, field + " must be a non-negative integer")
                    .with("field", field);
        }
        return v.asLong();
    }

    /** A cursor in a body: a non-negative integer or a string of digits. */
    public static long cursor(JsonNode value) {
        if (value != null && value.isIntegralNumber() && value.canConvertToLong() && value.asLong() >= 0) {
            return value.asLong();
        }
        if (value != null && value.isTextual() && value.asText().matches("[0-9]{1,18}")) {
            return Long.parseLong(value.asText());
        }
        throw ProtocolException.of(ErrorCode.INVALID, "cursor must be a non-negative integer")
                .with("cursor", value);
    }

    static void putIfPresent(ObjectNode out, String field, String value) {
        if (value != null) {
            out.put(field, value);
        }
    }

    static void putIfPresent(ObjectNode out, String field, Long value) {
        if (value != null) {
            out.put(field, value);
        }
    }
}
