package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code mp}: the protocol's client commands. Every one talks REST to {@code --base}, except {@code kafka-config}, which
 * reads a file under the server's data directory; none needs Kafka.
 */
@Command(
        name = "mp",
        scope = CommandLine.ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        version = "mp 0.1 (Monitor Protocol v0.1)",
        description = "Talks to a Monitor Protocol server over REST (default http://127.0.0.1:8130, or $MP_BASE).",
        footer = {
            "",
            "The server's reply goes to stdout as it came. Exit status: 0 answered; 1 refused by the server "
                    + "(its error body is on stdout); 2 bad command line; 3 no answer (connection refused, timeout, 5xx; "
                    + "one line on stderr)."
        },
        subcommands = {
            Watch.class,
            Commands.Ack.class,
            Commands.Pull.class,
            Commands.Publish.class,
            Commands.Subscribe.class,
            Commands.Seek.class,
            Commands.State.class,
            Commands.Monitors.class,
            Commands.Bridges.class,
            MonitorCommand.class,
            ConformCommand.class,
            McpCommand.class,
            KafkaConfigCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Mp implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    /** {@code mp} alone: the usage, and the status of a bad command line. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return Exit.USAGE;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        // Explicit UTF-8 and a flush at every line: stdout may be a pipe to an agent's Monitor tool, in a C locale.
        PrintWriter out =
                new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), UTF_8), true);
        PrintWriter err =
                new PrintWriter(new OutputStreamWriter(new FileOutputStream(FileDescriptor.err), UTF_8), true);
        return commandLine(out, err).execute(args);
    }

    /**
     * The command line as {@link #run} parses it. An option's value may look like an option: a token is random
     * base64url, so one in 64 starts with '-', and {@code --token -h...} must read it as the token, not as -h.
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return new CommandLine(new Mp())
                .setOut(out)
                .setErr(err)
                .setAllowOptionsAsOptionParameters(true)
                .setExecutionExceptionHandler((e, commandLine, parsed) -> {
                    if (e instanceof MonitorClient.Unreachable unreachable) {
                        err.println("mp: " + unreachable.getMessage());
                        err.flush();
                        return Exit.UNREACHABLE;
                    }
                    throw e;
                });
    }
}
