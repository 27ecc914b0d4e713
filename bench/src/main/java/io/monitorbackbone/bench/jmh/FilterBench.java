package io.monitorbackbone.bench.jmh;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Json;
import java.util.List;
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

/**
 * Filter matching as a read does it for every record it examines: the served observation is built from the decoded
 * draft, then matched. {@code servedThenMatch} is the per-record cost of a pull's scan besides decoding.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FilterBench {
    private final Draft draft = Fixtures.draft("s-1");
    private final ObjectNode served = draft.served("bench", 42, false);
    private final Filter all = Filter.ALL;
    private final Filter typesAndSubjects = Filter.parse(
            Json.parseBody(
                    "{\"types\":[\"com.example.*\"],\"subjects\":[\"s-0\",\"s-1\",\"s-2\"],\"tiers\":[\"measured\"]}"
                            .getBytes()),
            null);
    private final Filter miss = Filter.parse(Json.parseBody("{\"types\":[\"com.other.*\"]}".getBytes()), null);
    private final Filter tagAndText =
            Filter.parse(Json.parseBody("{\"#team\":[\"core\"],\"text\":\"bench\"}".getBytes()), List.of());

    @Benchmark
    public boolean matchAll() {
        return all.matches(served);
    }

    @Benchmark
    public boolean matchTypesSubjectsTiers() {
        return typesAndSubjects.matches(served);
    }

    @Benchmark
    public boolean matchMiss() {
        return miss.matches(served);
    }

    @Benchmark
    public boolean matchTagAndText() {
        return tagAndText.matches(served);
    }

    @Benchmark
    public boolean servedThenMatchAll() {
        return all.matches(draft.served("bench", 42, false));
    }
}
