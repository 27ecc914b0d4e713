package io.monitorbackbone.cli;

/** The exit statuses of every {@code mp} command, so a script can tell a refusal from a server that is away. */
final class Exit {
    /** The server answered 2xx (or {@code watch} ended on a retired subscription). */
    static final int OK = 0;
    /** The server refused the request with a protocol error (4xx); its error body is on stdout. */
    static final int REFUSED = 1;
    /** The command line was wrong; nothing was sent. */
    static final int USAGE = 2;
    /** No answer: connection refused, timed out, or a 5xx from a server that could not do its part. */
    static final int UNREACHABLE = 3;

    private Exit() {}
}
