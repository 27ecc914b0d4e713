package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import java.time.Instant;
import java.util.List;

/**
 * {@code POST /mp/v0/subscriptions}: subscribe (or re-key) a reader. What depends on the monitor is checked when the
 * request is applied: the grant, the filter (its known types include the monitor's declared ones) and where
 * {@code from} lands.
 *
 * @param capabilities what the reader asks for ({@code ["observe"]} when absent)
 * @param filter       the stored filter, as sent ({@code {}} when absent)
 * @param from         where the cursor starts; null keeps a re-keyed subscription's cursor (a new one starts at 0)
 */
public record Subscribe(
        String monitor,
        String subscriber,
        List<String> capabilities,
        String protocol,
        String resetPolicy,
        JsonNode filter,
        Long retireAfterMuteSeconds,
        From from,
        String sink) {

    /**
     * A start position: {@code head} (one past the last seq), {@code earliest} (the retention floor), a seq, or, beyond
     * the protocol, {@code {time}}: the first record appended at or after that time (where it lands is decided when the
     * request is applied, against the log).
     *
     * @param time the time of {@code {time}}, else null
     */
    public record From(String anchor, long seq, Instant time) {
        public static final From HEAD = new From("head", 0, null);
        public static final From EARLIEST = new From("earliest", 0, null);

        public static From at(long seq) {
            if (seq < 0) {
                throw new IllegalArgumentException("a start seq is non-negative: " + seq);
            }
            return new From(null, seq, null);
        }

        public static From at(Instant time) {
            return new From("time", 0, java.util.Objects.requireNonNull(time));
        }

        /** Whether this start is a time, to be looked up in the log. */
        public boolean byTime() {
            return time != null;
        }

        static From parse(JsonNode from) {
            if (from == null || from.isNull()) {
                return null;
            }
            if (from.isTextual() && from.asText().equals("head")) {
                return HEAD;
            }
            if (from.isTextual() && from.asText().equals("earliest")) {
                return EARLIEST;
            }
            if (from.isIntegralNumber() && from.canConvertToLong() && from.asLong() >= 0) {
                return at(from.asLong());
            }
            if (from.isObject() && from.size() == 1 && from.has("time")) {
                return at(Fields.time(from.get("time"), "from.time"));
            }
            throw ProtocolException.of(
                            ErrorCode.INVALID,
                            "`from` must be 'head', 'earliest', a non-negative integer or {\"time\": an RFC 3339 date-time}")
                    .with("from", from);
        }

        JsonNode toJson() {
            if (time != null) {
                return Json.object().put("time", time.toString());
            }
            return anchor != null
                    ? Json.MAPPER.getNodeFactory().textNode(anchor)
                    : Json.MAPPER.getNodeFactory().numberNode(seq);
        }
    }

    public static Subscribe parse(ObjectNode body) {
        String monitor = Json.text(body, "monitor");
        if (monitor == null) {
            throw ProtocolException.of(ErrorCode.INVALID, "monitor is required");
        }
        String subscriber = Json.text(body, "subscriber");
        if (subscriber == null || subscriber.isBlank()) {
            throw ProtocolException.of(ErrorCode.INVALID, "subscriber is required (an actor such as agent:name)");
        }
        List<String> capabilities = Json.strings(body, "capabilities");
        if (capabilities == null) {
            capabilities = List.of("observe");
        }
        String protocol = orElse(Json.text(body, "protocol"), "pull");
        String resetPolicy = orElse(Json.text(body, "reset_policy"), "none");
        new Vocabulary.Check()
                .values("capabilities", capabilities, Vocabulary.CAPABILITIES)
                .value("protocol", protocol, Vocabulary.PROTOCOLS)
                .value("reset_policy", resetPolicy, Vocabulary.RESET_POLICIES)
                .throwIfAny();
        JsonNode filter = body.get("filter");
        if (filter == null || filter.isNull()) {
            filter = Json.object();
        }
        Long retireAfterMute = Fields.optionalSeconds(body, "retire_after_mute_seconds");
        From from = From.parse(body.get("from"));
        return new Subscribe(
                monitor,
                subscriber,
                List.copyOf(capabilities),
                protocol,
                resetPolicy,
                filter,
                retireAfterMute,
                from,
                Json.text(body, "sink"));
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        out.put("monitor", monitor);
        out.put("subscriber", subscriber);
        out.set("capabilities", Json.array(capabilities));
        out.put("protocol", protocol);
        out.put("reset_policy", resetPolicy);
        out.set("filter", filter.deepCopy());
        Fields.putIfPresent(out, "retire_after_mute_seconds", retireAfterMuteSeconds);
        if (from != null) {
            out.set("from", from.toJson());
        }
        Fields.putIfPresent(out, "sink", sink);
        return out;
    }

    private static String orElse(String v, String fallback) {
        return v != null ? v : fallback;
    }
}
