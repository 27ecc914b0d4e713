package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;

/** Latency samples in nanoseconds, growable, for one thread; merged after a run. Percentiles are nearest-rank. */
final class Latencies {
    private long[] samples = new long[1024];
    private int size;

    void add(long nanos) {
        if (size == samples.length) {
            samples = Arrays.copyOf(samples, size * 2);
        }
        samples[size++] = nanos;
    }

    int size() {
        return size;
    }

    static Latencies merge(Iterable<Latencies> parts) {
        Latencies all = new Latencies();
        for (Latencies p : parts) {
            for (int i = 0; i < p.size; i++) {
                all.add(p.samples[i]);
            }
        }
        return all;
    }

    /** Nearest rank, so a reported p99 is a latency that was actually observed; milliseconds. */
    double percentileMs(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(samples, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1e6;
    }

    /** Writes n, p50, p90, p99 and max (ms) into {@code into}, under names prefixed with {@code prefix}. */
    void describe(ObjectNode into, String prefix) {
        into.put(prefix + "n", size);
        into.put(prefix + "p50_ms", round(percentileMs(50)));
        into.put(prefix + "p90_ms", round(percentileMs(90)));
        into.put(prefix + "p99_ms", round(percentileMs(99)));
        into.put(prefix + "max_ms", round(percentileMs(100)));
    }

    static double round(double v) {
        return Double.isNaN(v) ? v : Math.round(v * 1000) / 1000.0;
    }
}
