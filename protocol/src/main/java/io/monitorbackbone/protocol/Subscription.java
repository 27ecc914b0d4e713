package io.monitorbackbone.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A subscription's definition as stored in the compacted {@code mp.subscriptions} topic. Its position lives apart, in
 * {@link Cursor}, because it changes far more often than the definition.
 *
 * @param pushSecret   a push subscription's ({@code protocol: "http"}) Standard Webhooks secret, which the pusher needs
 *                     to sign with: shown once at subscribe, never served, never in the admin snapshot; null otherwise
 * @param pushDisabled why the pusher stopped for good (the receiver answered {@code 410 Gone}): {@code at},
 *                     {@code status}, {@code seq}, {@code reason}; null while it pushes
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Subscription(
        String id,
        String monitor,
        String subscriber,
        JsonNode filter,
        List<String> capabilities,
        String resetPolicy,
        String protocol,
        String sink,
        Long retireAfterMuteSeconds,
        String created,
        boolean active,
        String tokenHash,
        String pushSecret,
        JsonNode pushDisabled) {

    public Subscription {
        // Read back from the table, a JSON null is a NullNode: it means the push never stopped.
        if (pushDisabled != null && pushDisabled.isNull()) {
            pushDisabled = null;
        }
    }

    /** A subscription that does not push. */
    public Subscription(
            String id,
            String monitor,
            String subscriber,
            JsonNode filter,
            List<String> capabilities,
            String resetPolicy,
            String protocol,
            String sink,
            Long retireAfterMuteSeconds,
            String created,
            boolean active,
            String tokenHash) {
        this(
                id,
                monitor,
                subscriber,
                filter,
                capabilities,
                resetPolicy,
                protocol,
                sink,
                retireAfterMuteSeconds,
                created,
                active,
                tokenHash,
                null,
                null);
    }

    /** Whether the pusher delivers this subscription's observations to its sink now. */
    public boolean pushes() {
        return active && "http".equals(protocol) && sink != null && pushSecret != null && pushDisabled == null;
    }

    /** The push stopped for good: the receiver said it is gone. */
    public Subscription pushDisabled(JsonNode why) {
        return new Subscription(
                id,
                monitor,
                subscriber,
                filter,
                capabilities,
                resetPolicy,
                protocol,
                sink,
                retireAfterMuteSeconds,
                created,
                active,
                tokenHash,
                pushSecret,
                why);
    }

    public Subscription retired() {
        return new Subscription(
                id,
                monitor,
                subscriber,
                filter,
                capabilities,
                resetPolicy,
                protocol,
                sink,
                retireAfterMuteSeconds,
                created,
                false,
                tokenHash,
                pushSecret,
                pushDisabled);
    }

    public Subscription rekeyed(String newTokenHash) {
        return new Subscription(
                id,
                monitor,
                subscriber,
                filter,
                capabilities,
                resetPolicy,
                protocol,
                sink,
                retireAfterMuteSeconds,
                created,
                active,
                newTokenHash,
                pushSecret,
                pushDisabled);
    }

    public boolean tokenIs(String bearer) {
        return Tokens.matches(bearer, tokenHash);
    }

    public ObjectNode served(Cursor cursor, long lag) {
        ObjectNode s = Json.object();
        s.put("id", id);
        s.put("monitor", monitor);
        s.put("subscriber", subscriber);
        s.set("filter", filter);
        s.set("capabilities", Json.array(capabilities));
        s.put("cursor", cursor.cursor());
        s.put("reset_policy", resetPolicy);
        s.put("protocol", protocol);
        s.put("sink", sink);
        s.put("retire_after_mute_seconds", retireAfterMuteSeconds);
        s.put("created", created);
        s.put("last_pull", cursor.lastPull());
        s.put("active", active);
        s.put("lag", lag);
        if ("http".equals(protocol)) {
            // Beyond the protocol: whether the pusher delivers, and why it stopped if it did (never the secret).
            ObjectNode push = s.putObject("push");
            push.put("active", pushes());
            push.set("disabled", pushDisabled == null ? Json.MAPPER.nullNode() : pushDisabled.deepCopy());
        }
        return s;
    }

    /**
     * What a credential may hold on a monitor: everything the monitor offers for its owner or a shared monitor's
     * subscribe token, otherwise its {@code default_grant} plus what this subscriber already held.
     */
    public static List<String> grant(
            Monitor monitor, boolean privileged, List<String> requested, List<String> alreadyHeld) {
        LinkedHashSet<String> allowed = new LinkedHashSet<>();
        if (privileged) {
            allowed.addAll(monitor.capabilities());
        } else {
            allowed.addAll(monitor.defaultGrant());
            alreadyHeld.stream().filter(monitor.capabilities()::contains).forEach(allowed::add);
        }
        List<String> missing = new ArrayList<>(requested);
        missing.removeAll(allowed);
        if (!missing.isEmpty()) {
            throw ProtocolException.of(
                            ErrorCode.CAPABILITY_MISSING,
                            "this credential may be granted " + List.copyOf(allowed) + "; asked " + missing)
                    .with("granted", List.copyOf(allowed))
                    .with("monitor_capabilities", monitor.capabilities());
        }
        return List.copyOf(new LinkedHashSet<>(requested));
    }
}
