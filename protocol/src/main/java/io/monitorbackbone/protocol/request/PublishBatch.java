package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.ProtocolException;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch publish's envelope (beyond the protocol, {@code io.monitorbackbone/batch-publish}): {@code observations}, an
 * array of 1 to {@link Limits#MAX_BATCH_OBSERVATIONS} items, each the body of one publish. Only the envelope is checked
 * here; each item is checked as a single publish checks its body ({@link Publish#parse}) and answered on its own, so
 * one bad item never refuses the others.
 *
 * @param items each item as sent, in order; an item that is not a JSON object is kept as it is, to be refused alone
 */
public record PublishBatch(List<JsonNode> items) {
    public static final String FIELD = "observations";

    public static PublishBatch parse(ObjectNode body) {
        JsonNode list = body.get(FIELD);
        if (list == null || !list.isArray()) {
            throw ProtocolException.of(
                            ErrorCode.INVALID,
                            "a batch publish is {\"observations\": [...]}, an array of publish bodies")
                    .with("field", FIELD);
        }
        if (list.isEmpty()) {
            throw ProtocolException.of(ErrorCode.INVALID, "a batch publish holds at least one observation")
                    .with("field", FIELD);
        }
        if (list.size() > Limits.MAX_BATCH_OBSERVATIONS) {
            throw tooMany(list.size());
        }
        List<JsonNode> items = new ArrayList<>(list.size());
        list.forEach(items::add);
        return new PublishBatch(List.copyOf(items));
    }

    /** The refusal of a batch with more than {@link Limits#MAX_BATCH_OBSERVATIONS} observations. */
    public static ProtocolException tooMany(int count) {
        return ProtocolException.of(
                        ErrorCode.TOO_LARGE,
                        "a batch publish holds at most " + Limits.MAX_BATCH_OBSERVATIONS
                                + " observations; this one has " + count)
                .with("max_batch_observations", Limits.MAX_BATCH_OBSERVATIONS)
                .with("count", count);
    }

    /** What an item that is not a JSON object is refused with, as a single publish refuses such a body. */
    public static ProtocolException notAnObject() {
        return ProtocolException.of(ErrorCode.INVALID, "each observation of a batch is a JSON object");
    }
}
