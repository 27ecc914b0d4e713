package io.monitorbackbone.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How every command but {@code watch} ends: the server's body on stdout exactly as it came (success or error, so it
 * pipes into jq either way), and the exit status says which it was.
 */
final class Answers {

    private Answers() {}

    static int print(CommandSpec spec, MonitorClient api, MonitorClient.Reply reply) {
        PrintWriter out = spec.commandLine().getOut();
        if (reply.body() != null && !reply.body().isBlank()) {
            out.println(reply.body().strip());
        }
        out.flush();
        if (reply.ok()) {
            return Exit.OK;
        }
        if (reply.serverFault()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("mp: the server at " + api.base() + " could not answer (" + reply.status() + ")");
            err.flush();
            return Exit.UNREACHABLE;
        }
        return Exit.REFUSED;
    }
}
