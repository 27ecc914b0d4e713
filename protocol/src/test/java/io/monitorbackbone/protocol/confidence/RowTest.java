package io.monitorbackbone.protocol.confidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A row read from a log record's fields against the row read from its served form, which it replaced in the folds. */
class RowTest {
    private static final String[] TIMES = {
        "2026-11-29T18:00:00.000Z", "2026-11-29T18:00:00.5Z", "2026-11-29T18:00:00+01:00", "not a time", null
    };

    @Test
    void aRecordGivesTheRowItsServedFormGives() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 5_000; i++) {
            Draft record = new Draft(
                    pick(random, "demo.v", "ai.mentu.monitor.lease", null),
                    pick(random, "s-1", null),
                    TIMES[random.nextInt(TIMES.length)],
                    pick(random, "measured", "falsified", null),
                    pick(random, "probe", null),
                    pick(random, "machine_verified", null),
                    pick(random, "minute", null),
                    pick(random, "probe:a", "system:x", null),
                    data(random));
            long seq = 1 + random.nextInt(1_000);
            Instant appendedAt = random.nextBoolean() ? null : Instant.ofEpochMilli(random.nextLong(1L << 42));
            String monitor = pick(random, "w-1", "w-2");

            Row fromRecord = Row.of(seq, monitor, record, appendedAt);

            assertThat(fromRecord)
                    .as("%s", record)
                    .isEqualTo(Row.of(seq, record.served(monitor, seq, false), appendedAt));
        }
    }

    @Test
    void theActorAndTierFallBackToTheProvenanceOfData() {
        ObjectNode data = Json.object();
        data.putObject("provenance").put("actor", "probe:b").put("tier", "inferred");
        Draft record = new Draft("demo.v", "s", "2026-11-29T18:00:00.000Z", null, null, null, null, null, data);

        Row row = Row.of(4, "w-1", record, null);

        assertThat(row.actor()).isEqualTo("probe:b");
        assertThat(row.tier()).isEqualTo("inferred");
        assertThat(row.source()).isEqualTo("monitor:w-1");
        assertThat(row.timeEpochSecond())
                .isEqualTo(Instant.parse("2026-11-29T18:00:00Z").getEpochSecond());
    }

    private static ObjectNode data(SplittableRandom random) {
        return switch (random.nextInt(4)) {
            case 0 -> null;
            case 1 -> Json.object();
            case 2 -> {
                ObjectNode d = Json.object();
                d.put("v", random.nextInt(3));
                d.putObject("provenance")
                        .put("actor", "probe:p")
                        .put("tier", "measured")
                        .put("origin", "probe");
                yield d;
            }
            default -> {
                ObjectNode d = Json.object();
                d.put("provenance", "not an object");
                d.putObject("payload").put("action", "complete");
                yield d;
            }
        };
    }

    private static String pick(SplittableRandom random, String... options) {
        return options[random.nextInt(options.length)];
    }
}
