package io.monitorbackbone.projector;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One decoded row of a monitor's log on its way to the fold; it never leaves the task, so it has no serde.
 *
 * @param appendedAt the record's timestamp in epoch milliseconds: when the log appended it
 */
record Observed(long seq, long appendedAt, ObjectNode observation) {}
