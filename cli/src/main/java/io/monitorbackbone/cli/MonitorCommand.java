package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code mp monitor get|create}: one monitor's definition. */
@Command(
        name = "monitor",
        description = "Get or create one monitor.",
        subcommands = {MonitorCommand.Get.class, MonitorCommand.Create.class})
final class MonitorCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "mp monitor needs get or create");
    }

    @Command(name = "get", description = "A monitor's definition (private and shared ones need their token).")
    static final class Get implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            return Answers.print(spec, api, api.get("monitors/" + MonitorClient.segment(id), server.optionalToken()));
        }
    }

    @Command(name = "create", description = "Create a monitor; the answer holds its owner token, shown once.")
    static final class Create implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--id", paramLabel = "ID")
        String id;

        @Option(names = "--name", paramLabel = "NAME")
        String name;

        @Option(names = "--owner", paramLabel = "ACTOR", description = "e.g. human:dana, agent:bot.")
        String owner;

        @Option(names = "--visibility", paramLabel = "private|shared|public")
        String visibility;

        @Option(names = "--horizon", paramLabel = "HORIZON")
        String horizon;

        @Option(names = "--capabilities", split = ",", paramLabel = "CAP")
        List<String> capabilities;

        @Option(
                names = "--types",
                split = ",",
                paramLabel = "TYPE",
                description = "Declared reverse-DNS types (comma-separated).")
        List<String> types;

        @Option(
                names = "--source",
                paramLabel = "kafka:TOPIC",
                description = "Bridge a Kafka topic in: source {kind: feed, ref: kafka:TOPIC}.")
        String source;

        @Option(
                names = "--source-settings",
                paramLabel = "JSON",
                description = "The bridge's settings (format, type, subject, time, actor, start, tags...).")
        String sourceSettings;

        @Option(
                names = "--body",
                paramLabel = "JSON|@FILE|-",
                description = "The whole definition; the options above override its fields.")
        String body;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            ObjectNode request = Bodies.object(spec, body, System.in);
            Bodies.put(request, "id", id);
            Bodies.put(request, "name", name);
            Bodies.put(request, "owner", owner);
            Bodies.put(request, "visibility", visibility);
            Bodies.put(request, "horizon", horizon);
            if (capabilities != null) {
                request.set("capabilities", Json.array(capabilities));
            }
            if (types != null) {
                request.set("types", Json.array(types));
            }
            if (source != null || sourceSettings != null) {
                if (source == null || !source.startsWith("kafka:") || source.length() == "kafka:".length()) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(), "--source must be kafka:<topic> (and --source-settings needs it)");
                }
                ObjectNode s = request.putObject("source");
                s.put("kind", "feed");
                s.put("ref", source);
                if (sourceSettings != null) {
                    s.set("settings", Bodies.json(spec, "--source-settings", sourceSettings));
                }
            }
            // On a server started with a registration token, --token is that token.
            return Answers.print(spec, api, api.post("monitors", request, server.optionalToken()));
        }
    }
}
