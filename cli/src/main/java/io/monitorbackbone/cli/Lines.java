package io.monitorbackbone.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines {@code mp watch} prints, one event each, never spanning two lines: an agent's Monitor tool turns every
 * line into a notification. A value with whitespace, a quote or a control character is written as a JSON string so
 * that {@code key=value} pairs stay separable; an absent one is {@code -}.
 */
final class Lines {

    /** Longest {@code data=} value, "..." included, as the reference watch cuts it. */
    static final int DATA_MAX = 400;

    private static final String CUT = "...";

    private Lines() {}

    /** {@code kind} is OBS, or CATCHUP for the backlog that was already in the log when the watch started. */
    static String observation(String kind, JsonNode o) {
        return kind
                + " seq=" + value(o.get("id"))
                + " type=" + value(o.get("type"))
                + " subject=" + value(o.get("subject"))
                + " tier=" + value(o.get("tier"))
                + " origin=" + value(o.get("origin"))
                + " actor=" + value(o.get("actor"))
                + " redelivered=" + o.path("redelivered").asBoolean(false)
                + " data=" + data(o.get("data"));
    }

    static String next(long next, boolean acked) {
        return "NEXT " + next + (acked ? " acked" : "");
    }

    static String idle(long head, long lag, boolean lagBounded) {
        return "HEAD " + head + " LAG " + lag + (lagBounded ? "+" : "");
    }

    static String expired(long floor, Long requested) {
        return "EXPIRED retention_floor=" + floor + (requested == null ? "" : " requested=" + requested);
    }

    /** From a {@code GET monitors/{id}/state} answer. */
    static String state(String monitor, JsonNode state) {
        List<String> gaps = new ArrayList<>();
        state.path("confidence").path("gaps").forEach(g -> gaps.add(g.asText()));
        return "STATE monitor=" + bare(monitor)
                + " live=" + value(state.path("live").get("value"))
                + " reason=" + value(state.path("live").get("reason"))
                + " head=" + value(state.get("head"))
                + " retention_floor=" + value(state.get("retention_floor"))
                + " gaps=" + (gaps.isEmpty() ? "-" : String.join(",", gaps));
    }

    static String stateUnavailable(String monitor, int status) {
        return "STATE monitor=" + bare(monitor) + " unavailable=" + status;
    }

    static String retired() {
        return "RETIRED";
    }

    static String down(String reason, boolean retrying) {
        return "DOWN " + oneLine(reason)
                + (retrying ? "; retrying, nothing is lost while the server is away" : "; not retrying (--once)");
    }

    static String up(Long resumeAt) {
        return "UP the server answers again; resuming "
                + (resumeAt == null ? "from the subscription's cursor" : "at " + resumeAt);
    }

    static String error(int status, String body) {
        return "ERROR " + status + " " + (body == null || body.isBlank() ? "-" : oneLine(body.strip()));
    }

    /** Compact JSON, cut to {@value #DATA_MAX} characters with "..." when longer. */
    static String data(JsonNode data) {
        if (data == null || data.isMissingNode()) {
            return "null";
        }
        String text;
        try {
            text = Json.MAPPER.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            text = data.toString();
        }
        return cut(escapeLineBreaks(text), DATA_MAX);
    }

    static String cut(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int end = max - CUT.length();
        // Never leave half of a surrogate pair behind: the line must stay valid UTF-8.
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end) + CUT;
    }

    private static String value(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return "-";
        }
        return node.isValueNode() ? bare(node.asText()) : oneLine(node.toString());
    }

    private static String bare(String text) {
        if (text == null) {
            return "-";
        }
        if (text.isEmpty() || needsQuotes(text)) {
            try {
                return escapeLineBreaks(Json.MAPPER.writeValueAsString(text));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        return text;
    }

    private static boolean needsQuotes(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || c == '"' || c == '\u2028' || c == '\u2029') {
                return true;
            }
        }
        return false;
    }

    /**
     * JSON leaves U+0085, U+2028 and U+2029 raw inside strings, and some readers break lines there; inside a JSON string
     * (the only place JSON allows them) the escape means the same character.
     */
    static String escapeLineBreaks(String json) {
        StringBuilder out = null;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '\u0085' || c == '\u2028' || c == '\u2029') {
                if (out == null) {
                    out = new StringBuilder(json.length() + 8).append(json, 0, i);
                }
                out.append(String.format("\\u%04x", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? json : out.toString();
    }

    private static String oneLine(String text) {
        return text.replaceAll("[\\r\\n\\u0085\\u2028\\u2029]+", " ");
    }
}
