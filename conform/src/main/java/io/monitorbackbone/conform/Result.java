package io.monitorbackbone.conform;

/** One check's outcome: a one-line reason whatever the status, and how long the check took. */
public record Result(String id, String title, Status status, String reason, long ms) {
}
