package io.monitorbackbone.cli;

import io.monitorbackbone.conform.Conformance;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mp conform}: the conformance checks C01-C34 against any server (the {@code conform} module does the work). */
@Command(
        name = "conform",
        description = {
            "Runs the protocol's conformance checks (C01-C34, and our C17+, labelled stricter than the protocol) "
                    + "black-box over REST against a server: one line per check (PASS, FAIL or SKIP with its reason), then a "
                    + "summary, then how many of the monitors and subscriptions it created it retired. Exit status 0 when no "
                    + "protocol check failed, 1 on any FAIL of one, 2 on a bad command line."
        })
final class ConformCommand implements Callable<Integer> {

    @Option(
            names = "--base",
            paramLabel = "URL",
            description = "The server (default $MP_BASE, else http://127.0.0.1:8130).")
    String base;

    @Option(
            names = "--admin-token",
            paramLabel = "T",
            description = "The server's admin token (default $MP_ADMIN_TOKEN); C17 and C17+ are skipped without it.")
    String adminToken;

    @Option(
            names = "--registration-token",
            paramLabel = "T",
            description =
                    "The server's registration token (default $MP_REGISTRATION_TOKEN), for a server that requires one.")
    String registrationToken;

    @Option(
            names = "--json",
            description =
                    "Results as one JSON object: {base, results: [{id, title, status, reason, ms, stricter_than_protocol}], passed, failed, skipped, ms, cleanup}.")
    boolean json;

    @Option(names = "--only", paramLabel = "IDS", description = "Run only these checks, e.g. C05,C20b.")
    String only;

    @Override
    public Integer call() {
        List<String> args = new ArrayList<>();
        add(args, "--base", base);
        add(args, "--admin-token", adminToken);
        add(args, "--registration-token", registrationToken);
        add(args, "--only", only);
        if (json) {
            args.add("--json");
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        return Conformance.run(args.toArray(String[]::new), out);
    }

    private static void add(List<String> args, String name, String value) {
        if (value != null) {
            args.add(name);
            args.add(value);
        }
    }
}
