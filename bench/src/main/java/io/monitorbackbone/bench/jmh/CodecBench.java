package io.monitorbackbone.bench.jmh;

import io.monitorbackbone.binding.ObservationCodec;
import io.monitorbackbone.binding.ObservationDecoder;
import io.monitorbackbone.binding.ObservationEncoder;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Draft;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * The CloudEvents binary-mode encoding every publish makes, and the decoding every read of a record from Kafka makes,
 * each beside the CloudEvents SDK's way of doing the same, which they replaced, and the encoder and decoder a writer and
 * a fold keep from record to record.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBench {
    private final Draft draft = Fixtures.draft("s-1");
    private final Draft[] drafts = java.util.stream.IntStream.range(0, 16)
            .mapToObj(i -> Fixtures.draft("s-" + i))
            .toArray(Draft[]::new);
    private final ObservationEncoder encoder = new ObservationEncoder();
    private final ObservationDecoder decoder = new ObservationDecoder();
    private final ProducerRecord<String, byte[]>[] records = records();
    private int next;
    private final ProducerRecord<String, byte[]> record =
            ObservationCodec.encode(Topics.obs("bench"), "bench", null, draft);

    @Benchmark
    public ProducerRecord<String, byte[]> encode() {
        return ObservationCodec.encode(Topics.obs("bench"), "bench", null, draft);
    }

    /**
     * {@link #encode} by the encoder a writer keeps from record to record, a batch's records one after another (the
     * subject changing each time, the rest repeating).
     */
    @Benchmark
    public ProducerRecord<String, byte[]> encodeByWriter() {
        return encoder.encode(Topics.obs("bench"), "bench", null, drafts[next++ & 15]);
    }

    @Benchmark
    public Draft decode() {
        return ObservationCodec.decode(record.headers(), record.value(), 0L);
    }

    /** {@link #decode} by the decoder a fold keeps, a batch's records one after another. */
    @Benchmark
    public Draft decodeByReader() {
        ProducerRecord<String, byte[]> r = records[next++ & 15];
        return decoder.decode("bench", r.headers(), r.value(), 0L);
    }

    @SuppressWarnings("unchecked")
    private ProducerRecord<String, byte[]>[] records() {
        ObservationEncoder writer = new ObservationEncoder();
        return java.util.Arrays.stream(drafts)
                .map(d -> writer.encode(Topics.obs("bench"), "bench", null, d))
                .toArray(ProducerRecord[]::new);
    }

    /** What {@link #encode} cost through the CloudEvents SDK's builder and writer, before the direct encoding. */
    @Benchmark
    public ProducerRecord<String, byte[]> encodeWithSdk() {
        return ObservationCodec.encodeWithSdk(Topics.obs("bench"), "bench", null, draft);
    }

    /** What {@link #decode} cost through the SDK's reader, as it still does for records of another shape. */
    @Benchmark
    public Draft decodeWithSdk() {
        return ObservationCodec.decodeWithSdk(record.headers(), record.value(), 0L);
    }
}
