package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;

/**
 * The leases service, the single writer for every (monitor, subject) (docs/adr/0006): a command in, its decision out.
 * Implemented over Kafka by {@code kafka.LeaseClient}.
 */
public interface LeaseDecisions {

    /** Sends one command and blocks for its decision; a missing answer is a {@code ServerFault}, never a guess. */
    LeaseReply decide(LeaseCommand command);
}
