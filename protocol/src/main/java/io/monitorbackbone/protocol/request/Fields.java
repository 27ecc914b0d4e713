package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Times;
import java.time.Instant;

/** The readings of one body field that several requests share, each with the refusal it has on the wire. */
public final class Fields {
    private static final Instant EARLIEST_TIME = Instant.parse("0000-01-01T00:00:00Z");
    private static final Instant LATEST_TIME = Instant.parse("9999-12-31T23:59:59.999999999Z");

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

    /**
     * A point in time in a body: an RFC 3339 date-time with a zone or offset ({@code 2026-12-01T19:30:00Z},
     * {@code 2026-12-01T20:30:00.250+01:00}); anything else (epoch numbers, a time without a zone, words) is refused
     * as INVALID, naming the field and what was sent.
     */
    public static Instant time(JsonNode value, String field) {
        Instant t = value != null && value.isTextual() ? Times.parseOrNull(value.asText()) : null;
        // RFC 3339 years have four digits; a wider one (+10000-01-01T00:00:00Z) would not fit Kafka's milliseconds.
        if (t == null || t.isBefore(EARLIEST_TIME) || t.isAfter(LATEST_TIME)) {
            throw ProtocolException.of(
                            ErrorCode.INVALID,
                            field + " must be an RFC 3339 date-time with a zone, e.g. 2026-12-01T19:30:00Z")
                    .with("field", field)
                    .with("time", value);
        }
        return t;
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
