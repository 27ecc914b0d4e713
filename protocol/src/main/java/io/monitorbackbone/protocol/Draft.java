package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * An observation before the log has given it a seq: what is written to the monitor's topic. {@code data} is the full
 * served {@code data} object, {@code tags} and {@code provenance} included, so the record is self-describing to any
 * Kafka reader.
 */
public record Draft(
        String type,
        String subject,
        String time,
        String tier,
        String origin,
        String verified,
        String horizon,
        String actor,
        ObjectNode data) {

    /** The served {@code source} of a monitor's observations. */
    public static String source(String monitorId) {
        return "monitor:" + monitorId;
    }

    /** The CloudEvent as served, with the seq the log assigned. */
    public ObjectNode served(String monitorId, long seq, boolean redelivered) {
        ObjectNode o = Json.object();
        o.put("specversion", "1.0");
        o.put("id", Long.toString(seq));
        o.put("source", source(monitorId));
        o.put("type", type);
        o.put("subject", subject);
        o.put("time", time);
        o.put("datacontenttype", "application/json");
        o.set("data", data);
        o.put("sequence", Seq.sequence(seq));
        o.put("tier", tier);
        o.put("origin", origin);
        o.put("verified", verified);
        o.put("horizon", horizon);
        o.put("actor", actor);
        if (redelivered) {
            o.put("redelivered", true);
        }
        return o;
    }
}
