package io.monitorbackbone.leases;

import io.monitorbackbone.protocol.lease.Lease;
import io.monitorbackbone.protocol.lease.LeaseReply;

/** What the deciding task emits; the topology routes each kind to its topic. */
sealed interface LeaseOutput {

    /** Keyed by the request id, for {@code mp.lease-replies}. */
    record Reply(LeaseReply reply) implements LeaseOutput {}

    /** Keyed by (monitor, subject), for {@code mp.leases}; a null lease is the tombstone of a completed one. */
    record LeaseChange(Lease lease) implements LeaseOutput {}

    /** A CloudEvent already in binary mode: the {@code ce_*} headers ride on the record, this is its data. */
    record Observation(byte[] data) implements LeaseOutput {}
}
