package io.monitorbackbone.binding;

import java.util.regex.Pattern;

/**
 * Every topic the server's roles share, named once. A monitor's log is a topic of its own, {@code mp.obs.<id>}, with
 * one partition (a seq is its offset + 1); the tables are compacted. How each is created is {@link TopicLayout}'s.
 */
public final class Topics {
    /** The prefix of every monitor's log; the rest of the name is the monitor id. */
    public static final String OBS_PREFIX = "mp.obs.";
    /** Every monitor's log, for a pattern subscription (the projector's and the leases' sources). */
    public static final Pattern OBS = Pattern.compile(Pattern.quote(OBS_PREFIX) + ".+");

    /** Monitor definitions and token hashes, keyed by monitor id; written by the gateway. */
    public static final String MONITORS = "mp.monitors";
    /** Subscription definitions and token hashes, keyed by subscription id; written by the gateway. */
    public static final String SUBSCRIPTIONS = "mp.subscriptions";
    /** Committed cursors, delivered marks, last pulls, keyed by subscription id; written by the gateway. */
    public static final String CURSORS = "mp.cursors";
    /** One partition whose consumer group elects the gateway that runs the mute sweep (docs/adr/0008). */
    public static final String SWEEPER = "mp.sweeper";
    /** Each monitor's folded log, keyed by monitor id; written by the projector (docs/adr/0007). */
    public static final String STATE = "mp.state";

    /** Lease requests, keyed {@code <monitor>\u0000<subject>}; written by the gateways (docs/adr/0006). */
    public static final String LEASE_COMMANDS = "mp.lease-commands";
    /** The leases service's answers, keyed by request id. */
    public static final String LEASE_REPLIES = "mp.lease-replies";
    /** The lease table, keyed {@code <monitor>\u0000<subject>}; written by the leases service, read by the gateways. */
    public static final String LEASES = "mp.leases";
    /**
     * Published-subject marks, keyed like the commands, written by the gateway when it publishes a subject: a fixed
     * topic, so a new monitor does not rebalance the leases service as a pattern source would.
     */
    public static final String LEASE_SUBJECTS = "mp.lease-subjects";

    /**
     * Records of a bridged monitor's source that could not be decoded at all (docs/adr/0015-bridge.md), keyed by monitor
     * id, with the source's topic, partition, offset and the error in headers; written by the bridge.
     */
    public static final String BRIDGE_DEAD_LETTERS = "mp.bridge.dead-letters";

    private Topics() {}

    /** The log of a monitor. */
    public static String obs(String monitorId) {
        return OBS_PREFIX + monitorId;
    }

    /** Whether a topic is a monitor's log. */
    public static boolean isObs(String topic) {
        return topic.startsWith(OBS_PREFIX) && topic.length() > OBS_PREFIX.length();
    }

    /** The monitor whose log a topic is; {@link #isObs} must hold. */
    public static String monitorOf(String obsTopic) {
        if (!isObs(obsTopic)) {
            throw new IllegalArgumentException("not a monitor's log: " + obsTopic);
        }
        return obsTopic.substring(OBS_PREFIX.length());
    }
}
