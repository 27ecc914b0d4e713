package io.monitorbackbone.protocol.request;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Vocabulary;
import io.monitorbackbone.protocol.lease.LeaseCommand;

/**
 * {@code POST /mp/v0/subscriptions/{id}/leases/{action}}: claim, renew, complete, release or reject, with the fields
 * the client sent. {@link LeaseCommand#fromRequest} adds the monitor and the subscription it is made for.
 *
 * @param leaseDurationSeconds null: the leases service's default
 * @param evidence             null when absent or null
 */
public record LeaseCall(
        String action,
        String subject,
        Long leaseDurationSeconds,
        String note,
        String outcome,
        JsonNode evidence,
        String reason) {

    public LeaseCall {
        if (!LeaseCommand.ACTIONS.contains(action)) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "unknown route: leases/" + action);
        }
        if (evidence != null && evidence.isNull()) {
            evidence = null;
        }
    }

    /** A release as the server makes one for a holder that went away (its subscription or monitor retired). */
    public static LeaseCall release(String subject, String reason) {
        return new LeaseCall(LeaseCommand.RELEASE, subject, null, null, null, null, reason);
    }

    public static LeaseCall parse(String action, ObjectNode body) {
        if (!LeaseCommand.ACTIONS.contains(action)) {
            throw ProtocolException.of(ErrorCode.NOT_FOUND, "unknown route: leases/" + action);
        }
        JsonNode subject = body.get("subject");
        if (subject == null || !subject.isTextual()) {
            throw LeaseCommand.subjectRequired();
        }
        if (subject.asText().length() > Vocabulary.MAX_SUBJECT_LENGTH) {
            // No published subject is longer, and a key this long would not fit the lease table's records.
            throw ProtocolException.of(
                            ErrorCode.INVALID,
                            "subject is longer than " + Vocabulary.MAX_SUBJECT_LENGTH + " characters")
                    .with("field", "subject");
        }
        Long duration = duration(body);
        String note = Fields.optionalText(body, "note", null);
        String outcome = Fields.optionalText(body, "outcome", null);
        JsonNode evidence = body.get("evidence");
        String reason = Fields.optionalText(body, "reason", null);
        if (subject.asText().isEmpty()) {
            throw LeaseCommand.subjectRequired();
        }
        LeaseCommand.checkDuration(duration);
        return new LeaseCall(action, subject.asText(), duration, note, outcome, evidence, reason);
    }

    public ObjectNode toJson() {
        ObjectNode out = Json.object();
        out.put("subject", subject);
        Fields.putIfPresent(out, "lease_duration_seconds", leaseDurationSeconds);
        Fields.putIfPresent(out, "note", note);
        Fields.putIfPresent(out, "outcome", outcome);
        if (evidence != null) {
            out.set("evidence", evidence.deepCopy());
        }
        Fields.putIfPresent(out, "reason", reason);
        return out;
    }

    private static Long duration(ObjectNode body) {
        JsonNode v = body.get("lease_duration_seconds");
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.canConvertToExactIntegral() || !v.canConvertToLong()) {
            throw LeaseCommand.invalidDuration();
        }
        return v.asLong();
    }
}
