package io.monitorbackbone.conform;

/** Thrown inside a check: the server did not show what the check requires. The message is the one-line reason. */
class CheckFailed extends RuntimeException {
    CheckFailed(String reason) {
        super(reason, null, false, false);
    }
}
