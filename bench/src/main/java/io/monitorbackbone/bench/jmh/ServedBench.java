package io.monitorbackbone.bench.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Seq;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** What every publish answers and every pull returns per observation: the served CloudEvent and its JSON bytes. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ServedBench {
    private final Draft draft = Fixtures.draft("s-1");
    private long seq = 1_234_567;

    @Benchmark
    public String sequence() {
        return Seq.sequence(seq++);
    }

    @Benchmark
    public ObjectNode served() {
        return draft.served("bench", seq++, false);
    }

    @Benchmark
    public byte[] servedToBytes() {
        return Json.bytes(draft.served("bench", seq++, false));
    }
}
