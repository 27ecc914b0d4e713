package io.monitorbackbone.conform;

/** Thrown inside a check that cannot run against this server as configured; the message says why. */
final class CheckSkipped extends RuntimeException {
    CheckSkipped(String reason) {
        super(reason, null, false, false);
    }
}
