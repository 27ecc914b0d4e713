package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code mp kafka-config}: the client properties that connect a stock Kafka tool to the embedded broker of the server
 * whose data directory this is, as the server wrote them at its last start (it does not talk to the server).
 */
@Command(
        name = "kafka-config",
        description = {
            "Print the client properties (bootstrap.servers, security.protocol, sasl.mechanism, "
                    + "sasl.jaas.config) that connect a Kafka tool to the embedded broker of the server using --data, e.g. "
                    + "`./mp kafka-config > client.properties; kafka-console-consumer.sh --consumer.config client.properties ...`. "
                    + "They hold the broker's password: keep the copy private. A server on KAFKA_BOOTSTRAP_SERVERS has no "
                    + "embedded broker and no such file."
        })
final class KafkaConfigCommand implements Callable<Integer> {

    /** Where the server keeps them under its data directory (the broker module's {@code ClientCredentials.FILE}). */
    static final String FILE = "kafka-client.properties";

    @Spec
    CommandSpec spec;

    @Option(
            names = "--data",
            paramLabel = "DIR",
            description = "The server's data directory (default $MP_DATA, else ./data).")
    Path data;

    @Option(
            names = "--env",
            description = "Print them as the environment of a server (or a stand-alone projector or "
                    + "leases process) sharing this broker instead: `export KAFKA_BOOTSTRAP_SERVERS=...` and `MP_KAFKA_*` lines, "
                    + "for `eval \"$(./mp kafka-config --env)\"`.")
    boolean env;

    @Override
    public Integer call() {
        Path dir = data != null ? data : Path.of(System.getenv().getOrDefault("MP_DATA", "./data"));
        Path file = dir.resolve(FILE);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> lines;
        try {
            lines = Files.readAllLines(file, UTF_8);
        } catch (NoSuchFileException e) {
            err.println("mp: no " + file + ": start the server with its embedded broker (./mp serve, --data " + dir
                    + ") first; a server on KAFKA_BOOTSTRAP_SERVERS uses that cluster's own credentials");
            err.flush();
            return Exit.REFUSED;
        } catch (IOException e) {
            err.println("mp: cannot read " + file + ": " + e.getMessage());
            err.flush();
            return Exit.REFUSED;
        }
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            if (!env) {
                out.println(line);
                continue;
            }
            int eq = line.indexOf('=');
            String name = line.substring(0, eq);
            String value = line.substring(eq + 1);
            String variable = name.equals("bootstrap.servers")
                    ? "KAFKA_BOOTSTRAP_SERVERS"
                    : "MP_KAFKA_" + name.toUpperCase(java.util.Locale.ROOT).replace('.', '_');
            out.println("export " + variable + "='" + value.replace("'", "'\\''") + "'");
        }
        out.flush();
        return Exit.OK;
    }
}
