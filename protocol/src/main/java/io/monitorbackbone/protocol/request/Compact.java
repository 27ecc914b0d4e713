package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;

/**
 * {@code POST /mp/v0/admin/compact}: drop every observation with {@code seq <= upto_seq}, of one monitor or (when
 * {@code monitor} is null) of all.
 */
public record Compact(long uptoSeq, String monitor) {
    public static Compact parse(ObjectNode body) {
        return new Compact(Fields.cursor(body.get("upto_seq")), Json.text(body, "monitor"));
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        out.put("upto_seq", uptoSeq);
        Fields.putIfPresent(out, "monitor", monitor);
        return out;
    }
}
