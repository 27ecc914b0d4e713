package io.monitorbackbone.leases;

import io.monitorbackbone.protocol.lease.LeaseCommand;

/** What reaches the task that owns a (monitor, subject): a request, or news that the monitor published the subject. */
sealed interface LeaseInput {

    record Command(LeaseCommand command) implements LeaseInput {}

    /** @param horizon the monitor's horizon as the observation carried it; empty when it carried none */
    record Published(String horizon) implements LeaseInput {}
}
