package io.monitorbackbone.bench;

/** A run that cannot go on: a server that does not start, a setup call refused. Errors of measured calls are counted. */
final class BenchError extends RuntimeException {
    BenchError(String message) {
        super(message);
    }

    BenchError(String message, Throwable cause) {
        super(message, cause);
    }
}
