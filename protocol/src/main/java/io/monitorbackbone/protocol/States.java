package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.confidence.Confidence;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a monitor's {@link Aggregate} into the served State at request time. Pure: what the log says comes from the
 * aggregate, what is live (pause, retirement, subscriptions, cursors, retention, the clock) from the monitor and the
 * {@link Context}, so the same aggregate renders honestly a minute later.
 */
public final class States {
    public static final String COMPUTED_BY = Confidence.COMPUTED_BY;
    /** How long a reader may keep a rendered state: ages move every second, counters with every publish. */
    public static final long TTL_MS = 60_000;

    private States() {}

    /**
     * What the gateway knows besides the log's fold.
     *
     * @param head                 the monitor's log end (seq); {@code as_of_seq} below it means the aggregate lags
     * @param retentionFloor       the first seq the log still retains
     * @param activeSubscriptions  active subscriptions on the monitor
     * @param delivered            observations delivered to its subscriptions (counted, not a seq distance)
     * @param lastPull             the latest pull of an active subscription, or null
     */
    public record Context(
            long head, long retentionFloor, int activeSubscriptions, long delivered, Instant lastPull, Instant now) {}

    public static ObjectNode render(Monitor monitor, Aggregate a, Context c) {
        ObjectNode s = Json.object();
        s.put("monitor", monitor.id());
        s.put("as_of", Times.format(c.now()));
        s.put("as_of_seq", a.lastSeq());
        s.put("covers_until", a.lastSourceTime() != null ? a.lastSourceTime() : a.lastTime());
        s.put("head", c.head());
        s.put("retention_floor", c.retentionFloor());
        ObjectNode live = s.putObject("live");
        live.put("value", monitor.active());
        live.put("reason", monitor.retired() ? "retired" : monitor.paused() ? "paused" : null);
        ObjectNode counters = s.putObject("counters");
        counters.put("observations", a.observations());
        counters.put("delivered", c.delivered());
        counters.put("acted", a.acted());
        counters.put("subscriptions_active", c.activeSubscriptions());
        counters.put("rejected", a.rejected());
        counters.put("undecodable", a.undecodable());
        if (a.lastType() == null) {
            s.putNull("last");
        } else {
            ObjectNode last = s.putObject("last");
            last.put("seq", a.lastSeq());
            last.put("time", a.lastTime());
            last.put("type", a.lastType());
        }
        ObjectNode ages = s.putObject("ages");
        ages.put("since_last_observation_s", secondsSince(a.lastTime(), c.now()));
        ages.put("since_last_pull_s", c.lastPull() == null ? null : wholeSeconds(c.lastPull(), c.now()));
        ages.put("since_last_source_contact_s", secondsSince(a.lastSourceContact(), c.now()));
        s.put("contradictions_open", a.contradictionsOpen());

        Confidence.Assessment assessment = Confidence.assess(
                a.corroboration().value(),
                a.trackRecord().value(),
                a.independence().value(a.corroboration(), a.actors()),
                a.contradictionsOpen());
        ObjectNode confidence = s.putObject("confidence");
        if (assessment.value() == null) {
            confidence.putNull("value");
        } else {
            confidence.put("value", assessment.value());
        }
        confidence.put("computed_by", COMPUTED_BY);
        ObjectNode inputs = confidence.putObject("inputs");
        inputs.set("present", Json.array(assessment.present()));
        inputs.set("missing", Json.array(assessment.missing()));
        ObjectNode values = inputs.putObject("values");
        assessment.values().forEach(values::put);
        confidence.set("gaps", Json.array(gaps(monitor, a, c)));
        // Beyond the protocol (announced in discover): why a gap is there, where the server knows more than its name.
        ObjectNode reasons = confidence.putObject("gap_reasons");
        String missing = sourceMissing(monitor, a);
        if (missing != null) {
            reasons.put("stale_source", missing);
        } else if (staleSource(monitor, a, c.now())) {
            reasons.put(
                    "stale_source",
                    (a.lastSourceContact() != null ? "no source contact" : "no source contact since creation")
                            + " for longer than ttl_seconds " + monitor.ttlSeconds());
        }

        ObjectNode from = s.putObject("computed_from");
        from.put("seq_from", a.firstSeq() > 0 ? a.firstSeq() : c.retentionFloor());
        from.put("seq_to", a.lastSeq());
        s.put("ttl_ms", TTL_MS);
        s.putNull("supersedes");
        return s;
    }

    /** In the reference server's order. */
    static List<String> gaps(Monitor monitor, Aggregate a, Context c) {
        List<String> gaps = new ArrayList<>();
        if (!a.independence().hasDeclaration()) {
            gaps.add("independence_unknown");
        }
        if (a.unprovenanced() > 0) {
            gaps.add("no_event_provenance");
        }
        if (a.distinctActors() == 1) {
            gaps.add("single_actor");
        }
        if (sourceMissing(monitor, a) != null || staleSource(monitor, a, c.now())) {
            gaps.add("stale_source");
        }
        if (c.activeSubscriptions() == 0) {
            gaps.add("no_subscribers");
        }
        if (!monitor.attested()) {
            gaps.add("unattested_origin");
        }
        return gaps;
    }

    /**
     * The source has been silent longer than {@code ttl_seconds}: since its last contact, or, when it never made
     * contact, since the monitor was created.
     */
    static boolean staleSource(Monitor monitor, Aggregate a, Instant now) {
        if (monitor.ttlSeconds() == null) {
            return false;
        }
        Long silent = secondsSince(a.lastSourceContact() != null ? a.lastSourceContact() : monitor.created(), now);
        return silent != null && silent > monitor.ttlSeconds();
    }

    /**
     * Why the bridge says the monitor's Kafka source is not there, while the monitor still names that topic: the last
     * {@link Vocabulary#BRIDGE_SOURCE} row said {@code missing} and no bridged record or {@code present} row followed.
     */
    static String sourceMissing(Monitor monitor, Aggregate a) {
        Aggregate.SourceMissing m = a.sourceMissing();
        if (m == null
                || !io.monitorbackbone.protocol.request.KafkaSource.names(monitor.source())
                || !(io.monitorbackbone.protocol.request.KafkaSource.REF_PREFIX + m.topic())
                        .equals(Json.text(monitor.source(), "ref"))) {
            return null;
        }
        return "kafka:" + m.topic() + ": " + (m.reason() == null ? "the source topic is missing" : m.reason())
                + " (since " + m.since() + ", seq " + m.seq() + ")";
    }

    private static Long secondsSince(String time, Instant now) {
        Instant t = Times.parseOrNull(time);
        return t == null ? null : wholeSeconds(t, now);
    }

    /** Floored; a time slightly ahead of this clock (another host's) is age 0, not negative. */
    private static long wholeSeconds(Instant then, Instant now) {
        return Math.max(0, Duration.between(then, now).toSeconds());
    }
}
