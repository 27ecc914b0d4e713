package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * A monitor's log written through the same code paths the gateway uses ({@link Publications}, {@link ProtocolRows}),
 * folded as it grows. Seqs are consecutive unless a test skips some, as transaction markers would.
 */
public final class LogFixture {
    public static final Instant T0 = Instant.parse("2026-11-29T18:00:00Z");

    private Monitor monitor;
    private Aggregate aggregate = Aggregate.EMPTY;
    /** The same log folded from its records rather than their served form, as the projector folds it. */
    private Aggregate byRecord = Aggregate.EMPTY;

    private long seq;
    private Instant now = T0;

    private LogFixture(Monitor monitor) {
        this.monitor = monitor;
    }

    /** {@code definition} is a create request body; {@code attested} as if created with the registration token. */
    public static LogFixture of(String definition, boolean attested) {
        return new LogFixture(
                MonitorDefinitions.create("w-1", body(definition), T0, attested).monitor());
    }

    public static ObjectNode body(String json) {
        return (ObjectNode) Json.read(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public Monitor monitor() {
        return monitor;
    }

    public Aggregate aggregate() {
        return aggregate;
    }

    public long seq() {
        return seq;
    }

    public Instant now() {
        return now;
    }

    public LogFixture at(Instant instant) {
        now = instant;
        return this;
    }

    public LogFixture skipSeqs(long n) {
        seq += n;
        return this;
    }

    /** A producer's publish, as a request body. */
    public LogFixture publish(String requestBody) {
        return append(Publications.resolve(monitor, body(requestBody), now));
    }

    public LogFixture row(String type, String actor, String subject, String payload) {
        return append(ProtocolRows.row(monitor, type, actor, subject, body(payload), false, now));
    }

    public LogFixture rejected(String rawBody) {
        return append(ProtocolRows.rejected(
                monitor, ProtocolException.of(ErrorCode.INVALID, "no"), body(rawBody), "agent:x", null, now));
    }

    /** An update with the owner's token: on an attested, human-owned monitor the row gets origin {@code human}. */
    public LogFixture configure(String patch) {
        ObjectNode before = monitor.served(seq, Json.object());
        monitor = MonitorDefinitions.update(monitor, body(patch), now);
        ObjectNode after = monitor.served(seq + 1, Json.object());
        return append(ProtocolRows.configured(
                monitor,
                after,
                "update",
                ProtocolRows.digest(before),
                MonitorDefinitions.diff(before, after),
                null,
                null,
                true,
                now));
    }

    public LogFixture transition(String action) {
        monitor = MonitorDefinitions.transition(monitor, action);
        return this;
    }

    /** A served observation that arrived without provenance, as a bridged foreign record may. */
    public LogFixture unprovenanced(String type, String actor) {
        ObjectNode served = Json.object();
        served.put("specversion", "1.0");
        served.put("id", Long.toString(seq + 1));
        served.put("source", "monitor:" + monitor.id());
        served.put("type", type);
        served.put("time", Times.format(now));
        served.put("actor", actor);
        served.putObject("data").put("raw", true);
        return served(served);
    }

    private LogFixture append(Draft draft) {
        byRecord = byRecord.apply(monitor.id(), seq + 1, draft, now.toEpochMilli());
        seq++;
        aggregate = aggregate.apply(seq, draft.served(monitor.id(), seq, false), now);
        // Every log a test writes holds the two folds to the same aggregate, to the byte.
        if (!aggregate.equals(byRecord) || !java.util.Arrays.equals(aggregate.toJson(), byRecord.toJson())) {
            throw new AssertionError("the fold of the record " + new String(byRecord.toJson())
                    + " differs from the fold of its served form " + new String(aggregate.toJson()));
        }
        return this;
    }

    private LogFixture served(ObjectNode observation) {
        seq++;
        aggregate = aggregate.apply(seq, observation, now);
        byRecord = byRecord.apply(seq, observation, now);
        return this;
    }

    public ObjectNode state(States.Context context) {
        return States.render(monitor, aggregate, context);
    }

    /** A context with one active subscription that never pulled; the log's head is the last seq. */
    public States.Context context(Instant at) {
        return new States.Context(seq, 1, 1, 0, null, at);
    }
}
