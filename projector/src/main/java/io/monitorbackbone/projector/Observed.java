package io.monitorbackbone.projector;

import io.monitorbackbone.protocol.Draft;

/**
 * One decoded row of a monitor's log on its way to the fold; it never leaves the task, so it has no serde. The
 * record's key is the monitor it belongs to.
 *
 * @param appendedAt the record's timestamp in epoch milliseconds: when the log appended it
 * @param record     the row as the codec read it, folded without building its served form
 */
record Observed(long seq, long appendedAt, Draft record) {}
