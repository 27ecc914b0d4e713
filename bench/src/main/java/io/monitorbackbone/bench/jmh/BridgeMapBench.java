package io.monitorbackbone.bench.jmh;

import io.monitorbackbone.bridge.RecordMapper;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.request.KafkaSource;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
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
 * The bridge's mapping of one source record (scenario 10's: a JSON value padded to 572 bytes with its key, scenario
 * 8's record size) into the observation it writes, with the source's format named ({@code json}) and left to the
 * default ({@code auto}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BridgeMapBench {
    private final Monitor json = monitor("json");
    private final Monitor auto = monitor("auto");
    private final KafkaSource jsonSource = KafkaSource.of(json.source(), json.types());
    private final KafkaSource autoSource = KafkaSource.of(auto.source(), auto.types());
    private final ConsumerRecord<byte[], byte[]> record = record();

    @Benchmark
    public RecordMapper.Outcome json() {
        return RecordMapper.map(json, jsonSource, record, Fixtures.NOW);
    }

    @Benchmark
    public RecordMapper.Outcome auto() {
        return RecordMapper.map(auto, autoSource, record, Fixtures.NOW);
    }

    private static Monitor monitor(String format) {
        String body = "{\"id\":\"bridged\",\"visibility\":\"public\",\"capabilities\":[\"observe\"],"
                + "\"types\":[\"com.example.bench\"],\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:bench\","
                + "\"settings\":{\"format\":\"" + format + "\"}}}";
        return MonitorDefinitions.create(
                        "bridged", Json.parseBody(body.getBytes(StandardCharsets.UTF_8)), Fixtures.NOW, false)
                .monitor();
    }

    private static ConsumerRecord<byte[], byte[]> record() {
        byte[] key = "s-01".getBytes(StandardCharsets.UTF_8);
        char[] pad = new char[572 - key.length - "{\"n\":1,\"pad\":\"\"}".length()];
        Arrays.fill(pad, 'x');
        byte[] value = ("{\"n\":1,\"pad\":\"" + new String(pad) + "\"}").getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(
                "bench",
                0,
                41,
                Fixtures.NOW.toEpochMilli(),
                TimestampType.CREATE_TIME,
                -1,
                -1,
                key,
                value,
                new RecordHeaders(),
                Optional.empty());
    }
}
