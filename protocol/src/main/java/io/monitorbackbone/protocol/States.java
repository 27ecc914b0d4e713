package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Turns a monitor's {@link Aggregate} into the served State at request time: ages and staleness depend on now. */
public final class States {
    public static final String COMPUTED_BY = "monitor-backbone/0.1";
    static final List<String> PRESENT = List.of("observations", "ages", "actors", "contradictions_open");
    static final List<String> MISSING = List.of("independence", "corroboration", "track_record");

    private States() {
    }

    /** What the gateway knows besides the log's fold. */
    public record Context(long head, long retentionFloor, int activeSubscriptions, long delivered, Instant lastPull,
                          Instant now) {
    }

    public static ObjectNode render(Monitor monitor, Aggregate a, Context c) {
        ObjectNode s = Json.object();
        s.put("monitor", monitor.id());
        s.put("as_of", Times.format(c.now()));
        s.put("as_of_seq", a.lastSeq());
        s.put("covers_until", a.lastSourceContact() != null ? a.lastSourceContact() : a.lastTime());
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
        ObjectNode confidence = s.putObject("confidence");
        confidence.putNull("value");
        confidence.put("computed_by", COMPUTED_BY);
        ObjectNode inputs = confidence.putObject("inputs");
        inputs.set("present", Json.array(PRESENT));
        inputs.set("missing", Json.array(MISSING));
        confidence.set("gaps", Json.array(gaps(monitor, a, c)));
        ObjectNode from = s.putObject("computed_from");
        from.put("seq_from", c.retentionFloor());
        from.put("seq_to", a.lastSeq());
        s.put("ttl_ms", 60000);
        s.putNull("supersedes");
        return s;
    }

    static List<String> gaps(Monitor monitor, Aggregate a, Context c) {
        List<String> gaps = new ArrayList<>();
        gaps.add("independence_unknown");
        if (a.lacksProvenance()) {
            gaps.add("no_event_provenance");
        }
        if (a.actors().size() == 1) {
            gaps.add("single_actor");
        }
        Long age = secondsSince(a.lastTime(), c.now());
        if (monitor.ttlSeconds() != null && age != null && age > monitor.ttlSeconds()) {
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

    private static Long secondsSince(String time, Instant now) {
        Instant t = Times.parseOrNull(time);
        return t == null ? null : wholeSeconds(t, now);
    }

    private static long wholeSeconds(Instant then, Instant now) {
        return Math.max(0, Duration.between(then, now).toSeconds());
    }
}
