package io.monitorbackbone.conform;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The conformance runner: checks C01-C34 of the Monitor Protocol v0.1 against a server, black-box over REST.
 * {@code mp conform} calls {@link #run(String[], PrintStream)}; see {@link Options#USAGE} for the options.
 */
public final class Conformance {

    private Conformance() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /**
     * Runs the checks the arguments select, prints the results and what was retired afterwards; returns the exit status
     * (0, 1 on a FAIL of a protocol-level check, 2 on usage).
     */
    public static int run(String[] args, PrintStream out) {
        return run(args, out, System.getenv());
    }

    static int run(String[] args, PrintStream out, Map<String, String> env) {
        Options options;
        List<Check> checks;
        try {
            options = Options.parse(args, env);
            checks = select(CheckList.all(), options.only());
        } catch (Options.UsageError e) {
            out.println("conform: " + e.getMessage());
            out.println(Options.USAGE);
            return 2;
        }
        if (options.help()) {
            out.println(Options.USAGE);
            return 0;
        }
        long start = System.nanoTime();
        Runner.Run run = Runner.run(checks, options, options.json() ? r -> {} : r -> printLine(out, r));
        ConformReport report = new ConformReport(
                run.results(), options.base().toString(), (System.nanoTime() - start) / 1_000_000, run.cleanup());
        if (options.json()) {
            out.println(report.json());
        } else {
            out.println(report.summary());
            out.println(run.cleanup().line());
        }
        out.flush();
        return report.exitCode();
    }

    /** The checks named by {@code only} (all when empty); an unknown id is a usage error. */
    static List<Check> select(List<Check> all, Set<String> only) {
        if (only.isEmpty()) {
            return all;
        }
        Set<String> known =
                all.stream().map(c -> c.id().toUpperCase(java.util.Locale.ROOT)).collect(Collectors.toSet());
        List<String> unknown =
                only.stream().filter(id -> !known.contains(id)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw new Options.UsageError("no such check: " + String.join(", ", unknown));
        }
        return all.stream()
                .filter(c -> only.contains(c.id().toUpperCase(java.util.Locale.ROOT)))
                .toList();
    }

    private static void printLine(PrintStream out, Result r) {
        ConformReport.printLine(out, r);
        out.flush();
    }
}
