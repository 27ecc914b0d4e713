package io.monitorbackbone.protocol;

/** The provenance ladders: what an actor's name implies, and the defaults each origin gets. */
public final class Provenance {
    private Provenance() {}

    /** The origin an actor's prefix implies; anything unrecognised is an agent. */
    public static String inferOrigin(String actor) {
        if (actor == null) {
            return "agent";
        }
        int colon = actor.indexOf(':');
        String prefix = colon < 0 ? "" : actor.substring(0, colon);
        return switch (prefix) {
            case "human", "user" -> "human";
            case "system" -> "system";
            case "hook", "webhook" -> "webhook";
            case "probe" -> "probe";
            default -> "agent";
        };
    }

    /** Never {@code src}: a person promotes an observation to source truth explicitly. */
    public static String defaultTier(String origin) {
        return "agent".equals(origin) ? "unverified" : "measured";
    }

    /** Never {@code human_verified}: a person verifies explicitly. */
    public static String defaultVerification(String origin) {
        return switch (origin) {
            case "human" -> "reported";
            case "agent" -> "unverified";
            default -> "machine_verified";
        };
    }

    /**
     * What of a provenance only a person may claim, as it is named in a refusal ({@code origin 'human'}, {@code tier
     * 'src'}, {@code verification 'certified'}), or null when it claims nothing of the kind: the ceiling of a publish
     * without a human principal and of a bridge.
     */
    public static String personClaim(String origin, String tier, String verification) {
        if ("human".equals(origin)) {
            return "origin 'human'";
        }
        if ("src".equals(tier)) {
            return "tier 'src'";
        }
        if ("human_verified".equals(verification) || "certified".equals(verification)) {
            return "verification '" + verification + "'";
        }
        return null;
    }
}
