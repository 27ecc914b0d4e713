package io.monitorbackbone.protocol.lease;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.request.LeaseCall;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One lease request as the gateway sends it to the leases service (the value on {@code mp.lease-commands}, keyed by
 * {@link #key()}). The monitor travels as the three fields a protocol row needs, never its token hashes.
 *
 * @param requestId  a fresh random id per request: the reply's key, and the {@code ce_id} of the lease observation
 *                   the request writes (so the gateway can find that observation's seq)
 * @param published  whether the gateway has already seen this monitor publish the subject; the leases service also
 *                   keeps its own index, and either is enough
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.ALWAYS)
// A gateway newer than this leases service may add fields; the service decides on the ones it knows.
@JsonIgnoreProperties(ignoreUnknown = true)
public record LeaseCommand(
        String requestId,
        String action,
        String monitor,
        String horizon,
        boolean attested,
        String subject,
        String subscription,
        String subscriber,
        Long leaseDurationSeconds,
        String note,
        String outcome,
        JsonNode evidence,
        String reason,
        int deliveryCountLimit,
        boolean published) {

    public static final String CLAIM = "claim";
    public static final String RENEW = "renew";
    public static final String COMPLETE = "complete";
    public static final String RELEASE = "release";
    public static final String REJECT = "reject";
    public static final List<String> ACTIONS = List.of(CLAIM, RENEW, COMPLETE, RELEASE, REJECT);

    public static final long DEFAULT_LEASE_DURATION_SECONDS = 900;
    public static final long MIN_LEASE_DURATION_SECONDS = 1;
    public static final long MAX_LEASE_DURATION_SECONDS = 86_400;
    public static final int DEFAULT_DELIVERY_COUNT_LIMIT = 5;

    /** Monitor ids never contain it ({@code [\w.-]}), so the first one splits a key unambiguously. */
    public static final char KEY_SEPARATOR = '\u0000';

    public LeaseCommand {
        // What the gateway fills in is a programming error when wrong; what the client sent is a protocol refusal.
        requireText(requestId, "requestId");
        requireText(monitor, "monitor");
        requireText(horizon, "horizon");
        requireText(subscription, "subscription");
        requireText(subscriber, "subscriber");
        if (!ACTIONS.contains(action)) {
            throw new IllegalArgumentException("unknown lease action " + action);
        }
        if (deliveryCountLimit < 1) {
            throw new IllegalArgumentException("delivery_count_limit must be positive: " + deliveryCountLimit);
        }
        if (subject == null || subject.isEmpty()) {
            throw subjectRequired();
        }
        checkDuration(leaseDurationSeconds);
        // Jackson reads a JSON null into a JsonNode field as NullNode; one spelling of "absent" keeps equals honest.
        if (evidence != null && evidence.isNull()) {
            evidence = null;
        }
    }

    /**
     * The command a lease call makes for a subscription already authenticated; refuses a subscription without
     * {@code act}.
     */
    public static LeaseCommand fromRequest(
            LeaseCall call,
            Monitor monitor,
            Subscription subscription,
            int deliveryCountLimit,
            String requestId,
            boolean published) {
        if (subscription.capabilities() == null || !subscription.capabilities().contains("act")) {
            throw ProtocolException.of(ErrorCode.CAPABILITY_MISSING, "this subscription did not declare 'act'")
                    .with(
                            "capabilities",
                            subscription.capabilities() == null ? List.of() : subscription.capabilities());
        }
        return new LeaseCommand(
                requestId,
                call.action(),
                monitor.id(),
                monitor.horizon(),
                monitor.attested(),
                call.subject(),
                subscription.id(),
                subscription.subscriber(),
                call.leaseDurationSeconds(),
                call.note(),
                call.outcome(),
                call.evidence(),
                call.reason(),
                deliveryCountLimit,
                published);
    }

    public static String key(String monitor, String subject) {
        return monitor + KEY_SEPARATOR + subject;
    }

    /** The record key on {@code mp.lease-commands}: every command for one (monitor, subject) goes to one task. */
    public String key() {
        return key(monitor, subject);
    }

    public String holder() {
        return Lease.holderOf(subscription);
    }

    /**
     * What makes two requests "the same request": everything the client sent, nothing the server added. A repeat
     * with the same fingerprint gets the earlier answer instead of a second decision.
     */
    public String fingerprint() {
        ArrayNode parts = Json.MAPPER.createArrayNode();
        parts.add(action)
                .add(subscription)
                .add(subject)
                .add(leaseDurationSeconds)
                .add(note)
                .add(outcome)
                .add(evidence == null ? Json.MAPPER.nullNode() : evidence)
                .add(reason);
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256")
                            .digest(Json.MAPPER.writeValueAsString(parts).getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public byte[] toBytes() {
        return Json.bytes(this);
    }

    public static LeaseCommand fromJson(JsonNode node) {
        return Json.convert(node, LeaseCommand.class);
    }

    /** A lease call without a (non-empty, textual) subject. */
    public static ProtocolException subjectRequired() {
        return ProtocolException.of(ErrorCode.INVALID, "subject required").with("field", "subject");
    }

    /** Refuses a lease duration outside its bounds; null (the default) passes. */
    public static void checkDuration(Long leaseDurationSeconds) {
        if (leaseDurationSeconds != null
                && (leaseDurationSeconds < MIN_LEASE_DURATION_SECONDS
                        || leaseDurationSeconds > MAX_LEASE_DURATION_SECONDS)) {
            throw invalidDuration();
        }
    }

    public static ProtocolException invalidDuration() {
        return ProtocolException.of(
                        ErrorCode.INVALID,
                        "lease_duration_seconds must be an integer from " + MIN_LEASE_DURATION_SECONDS + " to "
                                + MAX_LEASE_DURATION_SECONDS)
                .with("field", "lease_duration_seconds");
    }

    private static void requireText(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " required");
        }
    }
}
