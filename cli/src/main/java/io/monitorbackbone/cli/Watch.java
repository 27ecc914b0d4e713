package io.monitorbackbone.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code mp watch}: follow a subscription, one line per event, for a person's terminal or an agent's Monitor tool. */
@Command(
        name = "watch",
        description = {
            "Follow a subscription, one line per event; a restarted watch resumes at the server's cursor.",
            "",
            "OBS seq=.. type=.. subject=.. tier=.. origin=.. actor=.. redelivered=.. data=..  one observation "
                    + "(CATCHUP instead of OBS for the backlog, with --catch-up); NEXT <n>  after each batch: ack "
                    + "<n> once it is handled (nothing is acked unless --ack-on-print); HEAD <h> LAG <l>  idle; "
                    + "EXPIRED / STATE  the cursor was below the retention floor; RETIRED  the subscription is "
                    + "retired (exit 0); DOWN / UP  the server went away and answers again (nothing is lost).",
            ""
        },
        footer = {
            "",
            "Exit status: 0 with --once or on RETIRED; 1 refused (an ERROR line); 2 bad command line; "
                    + "3 with --once when the server does not answer."
        })
final class Watch implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ServerOptions server;

    @Option(names = "--subscription", required = true, paramLabel = "ID")
    String subscription;

    @Option(
            names = "--catch-up",
            description =
                    "Print what was already in the log when the watch started as CATCHUP lines, read without waiting.")
    boolean catchUp;

    @Option(
            names = "--wait",
            defaultValue = "25",
            paramLabel = "S",
            description = "Long-poll up to S seconds per pull (default ${DEFAULT-VALUE}).")
    int waitSeconds;

    @Option(
            names = "--limit",
            defaultValue = "50",
            paramLabel = "N",
            description = "At most N observations per pull (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--once", description = "One pull, print, exit.")
    boolean once;

    @Option(names = "--ack-on-print", description = "Ack each batch once its lines are printed (NEXT <n> acked).")
    boolean ackOnPrint;

    @Override
    public Integer call() throws InterruptedException {
        if (waitSeconds < 0 || limit < 1) {
            throw new ParameterException(spec.commandLine(), "--wait must be 0 or more and --limit 1 or more");
        }
        WatchLoop.Options options = new WatchLoop.Options(catchUp, waitSeconds, limit, once, ackOnPrint);
        return new WatchLoop(
                        server.api(),
                        subscription,
                        server.requiredToken(),
                        options,
                        spec.commandLine().getOut(),
                        Thread::sleep)
                .run();
    }
}
