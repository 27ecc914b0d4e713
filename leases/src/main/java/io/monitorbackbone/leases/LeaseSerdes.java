package io.monitorbackbone.leases;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;
import io.monitorbackbone.protocol.lease.LeaseState;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/** The value formats of the leases topics and stores; keys are UTF-8 strings throughout. */
public record LeaseSerdes(
        Serde<LeaseCommand> commands, Serde<LeaseState> states, Serde<LeaseReply> replies, Serde<Lease> leases) {

    public static LeaseSerdes json() {
        return new LeaseSerdes(
                json(c -> Json.MAPPER.valueToTree(c), LeaseCommand::fromJson),
                json(LeaseState::toJson, LeaseState::fromJson),
                json(LeaseReply::toJson, LeaseReply::fromJson),
                json(Lease::toJson, Lease::fromJson));
    }

    /** Null stays null both ways: that is a tombstone on a compacted topic. */
    static <T> Serde<T> json(Function<T, JsonNode> write, Function<JsonNode, T> read) {
        return Serdes.serdeFrom(
                (topic, value) -> value == null ? null : Json.bytes(write.apply(value)),
                (topic, bytes) -> bytes == null ? null : read.apply(Json.read(bytes)));
    }
}
