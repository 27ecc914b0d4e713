package io.monitorbackbone.gateway.kafka;

/** Topic names; the monitors' logs are one single-partition topic each. */
public final class Topics {
    public static final String MONITORS = "mp.monitors";
    public static final String SUBSCRIPTIONS = "mp.subscriptions";
    public static final String CURSORS = "mp.cursors";
    /** Written by the leases service (docs/adr/0006); the gateway only reads it. */
    public static final String LEASES = "mp.leases";
    /** Each monitor's folded log, written by the projector (docs/adr/0009); the gateway only reads it. */
    public static final String STATE = io.monitorbackbone.projector.ProjectorTopology.STATE_TOPIC;
    public static final String OBS_PREFIX = "mp.obs.";

    private Topics() {
    }

    public static String obs(String monitorId) {
        return OBS_PREFIX + monitorId;
    }

    public static boolean isObs(String topic) {
        return topic.startsWith(OBS_PREFIX);
    }

    public static String monitorOf(String obsTopic) {
        return obsTopic.substring(OBS_PREFIX.length());
    }
}
