package io.monitorbackbone.conform;

/**
 * One check's outcome: a one-line reason whatever the status, and how long the check took. {@code stricter} marks a
 * check that asks more than the protocol's suite (see {@link Check#stricter}).
 */
public record Result(String id, String title, Status status, String reason, long ms, boolean stricter) {}
