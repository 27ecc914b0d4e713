package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.request.Publish;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A publish request becomes a {@link Draft} here and only here: shape checks and vocabularies ({@link Publish#parse}),
 * then the defaults that follow origin and the provenance ceiling ({@link #resolve(Monitor, Publish, Instant)}), in
 * that order.
 */
public final class Publications {
    public static final Map<String, List<String>> KNOWN =
            Map.of("tier", Vocabulary.TIERS, "origin", Vocabulary.ORIGINS, "verification", Vocabulary.VERIFICATIONS);

    private Publications() {}

    /** A body straight to a draft: {@link Publish#parse} then {@link #resolve(Monitor, Publish, Instant)}. */
    public static Draft resolve(Monitor monitor, ObjectNode body, Instant now) {
        return resolve(monitor, Publish.parse(body), now);
    }

    /** The defaults that follow origin, then the provenance ceiling of this monitor, for a request whose shape is checked. */
    public static Draft resolve(Monitor monitor, Publish request, Instant now) {
        String subject = request.subject();
        String actor = request.actor();
        String onBehalfOf = request.onBehalfOf();
        if (actor == null) {
            actor = monitor.owner();
        }
        boolean humanPrincipal = monitor.ownerIsHuman();
        String inferred = Provenance.inferOrigin(actor);
        String origin = request.origin();
        if (origin == null) {
            origin = humanPrincipal || !"human".equals(inferred) ? inferred : "agent";
        }
        String tier = orElse(request.tier(), Provenance.defaultTier(origin));
        String verification = orElse(request.verification(), Provenance.defaultVerification(origin));

        if (onBehalfOf != null && !onBehalfOf.equals(monitor.owner())) {
            throw refusal(
                    ErrorCode.PROVENANCE_CEILING,
                    "on_behalf_of names '" + onBehalfOf
                            + "', but this monitor acts for its owner '" + monitor.owner()
                            + "': an agent works at the level of the person whose token it holds, not of anyone it names");
        }
        if ("src".equals(tier) && !"human".equals(origin)) {
            throw refusal(
                    ErrorCode.TIER_NOT_ASSERTABLE,
                    "a machine cannot assert tier 'src'; a person promotes it on review");
        }
        if (!humanPrincipal) {
            String claim = Provenance.personClaim(origin, tier, verification);
            if (claim != null) {
                throw refusal(
                        ErrorCode.PROVENANCE_CEILING,
                        claim + " needs a human principal; this monitor's owner is '" + monitor.owner() + "'");
            }
        }
        if ("human".equals(origin) && !"human".equals(inferred) && onBehalfOf == null) {
            throw refusal(
                    ErrorCode.PROVENANCE_CEILING,
                    "actor '" + actor
                            + "' cannot carry origin 'human' unless it names the person it acts for (on_behalf_of: '"
                            + monitor.owner() + "')");
        }

        ObjectNode stored =
                request.data() == null ? Json.object() : request.data().deepCopy();
        ObjectNode storedTags =
                request.tags() == null ? Json.object() : request.tags().deepCopy();
        storedTags.put("monitor", monitor.id());
        storedTags.put("origin", origin);
        stored.set("tags", storedTags);
        ObjectNode provenance = Json.object();
        provenance.put("origin", origin);
        provenance.put("tier", tier);
        provenance.put("verification", verification);
        provenance.put("actor", actor);
        provenance.put("on_behalf_of", onBehalfOf);
        provenance.put("attested", monitor.attested());
        provenance.put("source_ref", request.sourceRef() != null ? request.sourceRef() : subject);
        provenance.put("rule", request.rule());
        provenance.set("wasDerivedFrom", request.wasDerivedFrom().deepCopy());
        provenance.put("wasAttributedTo", actor);
        provenance.set(
                "supersedes",
                request.supersedes() == null
                        ? Json.MAPPER.nullNode()
                        : request.supersedes().deepCopy());
        stored.set("provenance", provenance);
        String time = request.time();
        return new Draft(
                request.type(),
                subject,
                time != null ? time : Times.format(now),
                tier,
                origin,
                verification,
                monitor.horizon(),
                actor,
                stored);
    }

    /**
     * Configuration, subscription, lease, rejection, state and bookmark rows, rule reactions and the bridge's source
     * rows are the server's record of what it did: a publisher forging one could, say, count a lease as completed, or
     * say a bridged source is missing (or there again) when the bridge does not.
     */
    public static boolean isServerType(String type) {
        boolean protocolType = type.startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX)
                && !type.equals(Vocabulary.CONTRADICTION)
                && !type.equals(Vocabulary.CONTRADICTION_RESOLVED);
        return protocolType || type.startsWith(Rules.TYPE_PREFIX) || type.equals(Vocabulary.BRIDGE_SOURCE);
    }

    /** A refusal of a publish: it names the vocabularies, so a publisher sees every value it may use. */
    public static ProtocolException refusal(ErrorCode code, String message) {
        return ProtocolException.of(code, message).with("invalid", List.of()).with("known", KNOWN);
    }

    private static String orElse(String value, String fallback) {
        return value != null ? value : fallback;
    }
}
