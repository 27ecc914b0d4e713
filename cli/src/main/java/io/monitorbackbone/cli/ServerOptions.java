package io.monitorbackbone.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Where the server is and which token to send: every command has these two options. */
final class ServerOptions {

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(
            names = "--base",
            paramLabel = "URL",
            defaultValue = "${env:MP_BASE:-http://127.0.0.1:8130}",
            description = "The server (default: $MP_BASE, else ${DEFAULT-VALUE}).")
    String base;

    @Option(
            names = "--token",
            paramLabel = "TOKEN",
            defaultValue = "${env:MP_TOKEN}",
            description =
                    "Bearer token (default: $MP_TOKEN). Which one depends on the command: owner, subscription, ...")
    String token;

    MonitorClient api() {
        return new MonitorClient(base);
    }

    /** The token, or a usage error naming the command that needs it. */
    String requiredToken() {
        if (token == null || token.isBlank()) {
            throw new ParameterException(
                    spec.commandLine(), spec.qualifiedName() + " needs a token: --token TOKEN or MP_TOKEN");
        }
        return token;
    }

    /** The token if one was given, else null (anonymous). */
    String optionalToken() {
        return token == null || token.isBlank() ? null : token;
    }
}
