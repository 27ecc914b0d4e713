package io.monitorbackbone.projector;

import io.monitorbackbone.protocol.Aggregate;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** The aggregate as JSON: the store, its changelog and {@code mp.state} all hold the same bytes. */
public final class AggregateSerde {
    private AggregateSerde() {}

    public static Serde<Aggregate> create() {
        return Serdes.serdeFrom(
                (topic, a) -> a == null ? null : a.toJson(),
                (topic, bytes) -> bytes == null ? null : Aggregate.fromJson(bytes));
    }
}
