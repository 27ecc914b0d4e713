package io.monitorbackbone.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The one-request commands: each sends one request and prints the server's answer (see {@link Answers}). */
final class Commands {

    private Commands() {}

    @Command(
            name = "ack",
            description = "Move a subscription's cursor forward (cumulative): everything below CURSOR is done.")
    static final class Ack implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--subscription", required = true, paramLabel = "ID")
        String subscription;

        @Option(
                names = "--cursor",
                required = true,
                paramLabel = "N",
                description = "The next seq to deliver, e.g. what a NEXT line said.")
        long cursor;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            ObjectNode body = new io.monitorbackbone.protocol.request.Ack(cursor).toJson();
            return Answers.print(
                    spec,
                    api,
                    api.post(
                            "subscriptions/" + MonitorClient.segment(subscription) + "/ack",
                            body,
                            server.requiredToken()));
        }
    }

    @Command(
            name = "pull",
            description =
                    "One pull: observations from the cursor (or from --cursor, a replay); never moves the cursor.")
    static final class Pull implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--subscription", required = true, paramLabel = "ID")
        String subscription;

        @Option(
                names = "--cursor",
                paramLabel = "N",
                description = "Replay from this seq instead of the committed cursor.")
        Long cursor;

        @Option(
                names = "--wait",
                paramLabel = "S",
                description = "Park up to S seconds when nothing is there (default 0).")
        Integer waitSeconds;

        @Option(names = "--limit", paramLabel = "N")
        Integer limit;

        @Option(
                names = "--filter",
                paramLabel = "KEY=VALUE",
                description = "An inline filter key (types, subjects, #tag, ...); narrows only. Repeatable.")
        List<String> filters = new ArrayList<>();

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            List<String> query = new ArrayList<>();
            if (cursor != null) {
                query.add("cursor=" + cursor);
            }
            if (waitSeconds != null) {
                query.add("wait=" + waitSeconds);
            }
            if (limit != null) {
                query.add("limit=" + limit);
            }
            for (String f : filters) {
                int eq = f.indexOf('=');
                if (eq <= 0) {
                    throw new ParameterException(spec.commandLine(), "--filter takes KEY=VALUE, not " + f);
                }
                query.add(MonitorClient.segment(f.substring(0, eq)) + "=" + MonitorClient.segment(f.substring(eq + 1)));
            }
            String path = "subscriptions/" + MonitorClient.segment(subscription) + "/pull"
                    + (query.isEmpty() ? "" : "?" + String.join("&", query));
            long timeout = MonitorClient.DEFAULT_TIMEOUT.toSeconds() + (waitSeconds == null ? 0 : waitSeconds);
            return Answers.print(spec, api, api.get(path, server.requiredToken(), Duration.ofSeconds(timeout)));
        }
    }

    @Command(
            name = "publish",
            description = "Publish one observation to a monitor, or many with --batch (owner token).")
    static final class Publish implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--monitor", required = true, paramLabel = "ID")
        String monitor;

        @Option(names = "--type", paramLabel = "TYPE", description = "Reverse-DNS type, e.g. com.example.ci.run.")
        String type;

        @Option(names = "--subject", paramLabel = "SUBJECT")
        String subject;

        @Option(names = "--actor", paramLabel = "ACTOR", description = "e.g. probe:ci, agent:claude, human:dana.")
        String actor;

        @Option(names = "--tier", paramLabel = "TIER")
        String tier;

        @Option(names = "--origin", paramLabel = "ORIGIN")
        String origin;

        @Option(names = "--data", paramLabel = "JSON", description = "The observation's data, a JSON value.")
        String data;

        @Option(
                names = "--body",
                paramLabel = "JSON|@FILE|-",
                description = "The whole request body; the options above override its fields.")
        String body;

        @Option(
                names = "--batch",
                paramLabel = "FILE|-",
                description = "Many observations (a JSON array, or one JSON object per line) as batch publishes of at"
                        + " most 1,000 and 1 MiB each; the options above override each one's fields.")
        String batch;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            if (batch != null) {
                if (body != null) {
                    throw new ParameterException(spec.commandLine(), "--batch and --body cannot both be given");
                }
                List<ObjectNode> items = Bodies.many(spec, batch, System.in);
                items.forEach(this::override);
                return PublishBatches.send(spec, api, monitor, items, server.requiredToken());
            }
            ObjectNode request = Bodies.object(spec, body, System.in);
            override(request);
            return Answers.print(
                    spec,
                    api,
                    api.post(
                            "monitors/" + MonitorClient.segment(monitor) + "/observations",
                            request,
                            server.requiredToken()));
        }

        private void override(ObjectNode request) {
            Bodies.put(request, "type", type);
            Bodies.put(request, "subject", subject);
            Bodies.put(request, "actor", actor);
            Bodies.put(request, "tier", tier);
            Bodies.put(request, "origin", origin);
            if (data != null) {
                request.set("data", Bodies.json(spec, "--data", data));
            }
        }
    }

    @Command(
            name = "subscribe",
            description =
                    "Subscribe a reader to a monitor (or re-key its subscription); the answer holds the token, shown once.")
    static final class Subscribe implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--monitor", required = true, paramLabel = "ID")
        String monitor;

        @Option(names = "--subscriber", required = true, paramLabel = "NAME", description = "e.g. agent:claude.")
        String subscriber;

        @Option(
                names = "--capabilities",
                split = ",",
                paramLabel = "CAP",
                description = "observe, react, act (comma-separated).")
        List<String> capabilities;

        @Option(
                names = "--filter",
                paramLabel = "JSON",
                description = "A stored filter, e.g. '{\"types\":[\"com.example.*\"]}'.")
        String filter;

        @Option(
                names = "--from",
                paramLabel = "head|earliest|N|TIME",
                description = "Where the cursor starts; a TIME (RFC 3339, e.g. 2026-12-01T19:30:00Z) is the first "
                        + "observation appended at or after it.")
        String from;

        @Option(names = "--reset-policy", paramLabel = "none|earliest|latest")
        String resetPolicy;

        @Option(
                names = "--body",
                paramLabel = "JSON|@FILE|-",
                description = "The whole request body; the options above override its fields.")
        String body;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            ObjectNode request = Bodies.object(spec, body, System.in);
            Bodies.put(request, "monitor", monitor);
            Bodies.put(request, "subscriber", subscriber);
            if (capabilities != null) {
                request.set("capabilities", Json.array(capabilities));
            }
            if (filter != null) {
                request.set("filter", Bodies.json(spec, "--filter", filter));
            }
            if (from != null) {
                if (from.matches("[0-9]{1,18}")) {
                    request.put("from", Long.parseLong(from));
                } else if (looksLikeATime(from)) {
                    request.putObject("from").put("time", from);
                } else {
                    request.put("from", from);
                }
            }
            Bodies.put(request, "reset_policy", resetPolicy);
            return Answers.print(spec, api, api.post("subscriptions", request, server.optionalToken()));
        }
    }

    /** A value that starts as a date does ({@code 2026-12-01T...}): sent as a time, for the server to check. */
    static boolean looksLikeATime(String value) {
        return value.matches("[0-9]{4}-.*");
    }

    @Command(
            name = "seek",
            description = "Move a subscription's cursor to a seq or to a time, backwards too; the reason is logged.")
    static final class Seek implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--subscription", required = true, paramLabel = "ID")
        String subscription;

        @Option(names = "--cursor", paramLabel = "N", description = "The seq to deliver next.")
        Long cursor;

        @Option(
                names = "--time",
                paramLabel = "TIME",
                description = "Instead of --cursor: an RFC 3339 time (e.g. 2026-12-01T19:30:00Z); the cursor goes to "
                        + "the first observation appended at or after it.")
        String time;

        @Option(names = "--reason", required = true, paramLabel = "TEXT", description = "Why; logged with the seek.")
        String reason;

        @Override
        public Integer call() {
            if ((cursor == null) == (time == null)) {
                throw new ParameterException(spec.commandLine(), "give one of --cursor and --time");
            }
            MonitorClient api = server.api();
            ObjectNode body = Json.object();
            if (cursor != null) {
                body.put("cursor", cursor);
            } else {
                body.put("time", time);
            }
            body.put("reason", reason);
            return Answers.print(
                    spec,
                    api,
                    api.post(
                            "subscriptions/" + MonitorClient.segment(subscription) + "/seek",
                            body,
                            server.requiredToken()));
        }
    }

    @Command(name = "state", description = "A monitor's computed state: counters, ages, gaps, confidence.")
    static final class State implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(names = "--monitor", required = true, paramLabel = "ID")
        String monitor;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            return Answers.print(
                    spec,
                    api,
                    api.get("monitors/" + MonitorClient.segment(monitor) + "/state", server.optionalToken()));
        }
    }

    @Command(name = "monitors", description = "The monitors the token may see (public ones without a token).")
    static final class Monitors implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            return Answers.print(spec, api, api.get("monitors", server.optionalToken()));
        }
    }

    @Command(
            name = "bridges",
            description =
                    "Each bridged monitor's lag behind its Kafka topic, per partition, and what its records became"
                            + " (bridged, rejected, dead-lettered); needs the server's admin token.")
    static final class Bridges implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        ServerOptions server;

        @Option(
                names = "--monitor",
                paramLabel = "ID",
                description = "Only this monitor (a retired one too); without it, every bridged monitor not retired.")
        String monitor;

        @Override
        public Integer call() {
            MonitorClient api = server.api();
            String path = monitor == null ? "admin/bridges" : "admin/bridges/" + MonitorClient.segment(monitor);
            return Answers.print(spec, api, api.get(path, server.optionalToken()));
        }
    }
}
