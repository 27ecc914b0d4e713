package io.monitorbackbone.projector;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One decoded row of a monitor's log on its way to the fold.
 *
 * @param appendedAt the record's timestamp in epoch milliseconds: when the log appended it
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
record Observed(long seq, long appendedAt, ObjectNode observation) {

    /** JSON; only used if Kafka Streams ever has to put a decoded row on a topic. */
    static Serde<Observed> serde() {
        Serializer<Observed> serializer = (topic, o) -> o == null ? null : Json.bytes(o);
        Deserializer<Observed> deserializer = (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            try {
                return Json.MAPPER.readValue(bytes, Observed.class);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        return Serdes.serdeFrom(serializer, deserializer);
    }
}
