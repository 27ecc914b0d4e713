package io.monitorbackbone.bench.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.States;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A monitor's state: rendering the served State (and its JSON bytes) from an aggregate that folded 10,000 observations
 * from 50 actors, one step of the fold (alone, and after the decode of a log record), and the content digest the fold
 * takes of each claim.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StateBench {
    private Aggregate aggregate;
    private ObjectNode next;
    private States.Context context;
    private ProducerRecord<String, byte[]> record;
    private ProducerRecord<String, byte[]> recordAtMillis;
    private final ObjectNode bridgedData = bridgedData();

    @Setup
    public void fold() {
        Aggregate a = Aggregate.EMPTY;
        for (int i = 1; i <= 10_000; i++) {
            ObjectNode served = Fixtures.draft("s-" + (i % 100)).served("bench", i, false);
            served.put("actor", "probe:p" + (i % 50));
            a = a.apply(i, served, Fixtures.NOW);
        }
        aggregate = a;
        Draft d = Fixtures.draft("s-1");
        next = d.served("bench", 10_001, false);
        record = ObservationCodec.encode(Topics.obs("bench"), "bench", null, d);
        Draft atMillis = new Draft(
                d.type(),
                d.subject(),
                "2026-11-29T12:00:00.123Z",
                d.tier(),
                d.origin(),
                d.verified(),
                d.horizon(),
                d.actor(),
                d.data());
        recordAtMillis = ObservationCodec.encode(Topics.obs("bench"), "bench", null, atMillis);
        context = new States.Context(10_000, 1, 3, 9_000, Fixtures.NOW, Fixtures.NOW.plusSeconds(5));
    }

    @Benchmark
    public ObjectNode render() {
        return States.render(Fixtures.MONITOR, aggregate, context);
    }

    @Benchmark
    public byte[] renderToBytes() {
        return Json.bytes(States.render(Fixtures.MONITOR, aggregate, context));
    }

    /** The content digest corroboration takes of every claim (type and data without provenance and tags). */
    @Benchmark
    public String digest() {
        return io.monitorbackbone.protocol.confidence.ContentDigest.of(
                next.path("type").asText(), (ObjectNode) next.get("data"));
    }

    /** The same for data like a bridged record's (scenario 10's): a number and a string of 540 characters. */
    @Benchmark
    public String digestOfALongString() {
        return io.monitorbackbone.protocol.confidence.ContentDigest.of("com.example.bench", bridgedData);
    }

    @Benchmark
    public Aggregate foldOne() {
        return aggregate.apply(10_001, next, Fixtures.NOW);
    }

    /**
     * What the projector (and a gateway's follower catching up) does with each record of a monitor's log: decode it
     * and fold it into the aggregate.
     */
    @Benchmark
    public Aggregate decodeAndFold() {
        Draft draft = ObservationCodec.decode("bench", record.headers(), record.value(), 0L);
        return aggregate.apply("bench", 10_001, draft, Fixtures.NOW.toEpochMilli());
    }

    /**
     * The same for a record whose time has a millisecond part ending in a digit other than 0: its {@code ce_time} has
     * the served shape, as nine in ten server-stamped times do, where the fixture's whole second does not.
     */
    @Benchmark
    public Aggregate decodeAndFoldAtMillis() {
        Draft draft = ObservationCodec.decode("bench", recordAtMillis.headers(), recordAtMillis.value(), 0L);
        return aggregate.apply("bench", 10_001, draft, Fixtures.NOW.toEpochMilli());
    }

    private static ObjectNode bridgedData() {
        ObjectNode d = Json.object();
        d.put("n", 1);
        d.put("pad", "x".repeat(540));
        d.putObject("provenance").put("source_ref", "kafka:bench/0/41").put("actor", "bridge:bench");
        return d;
    }
}
