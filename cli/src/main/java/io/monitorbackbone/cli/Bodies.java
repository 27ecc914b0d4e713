package io.monitorbackbone.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Request bodies from the command line: {@code --body} (JSON, {@code @file} or {@code -} for stdin) plus field options. */
final class Bodies {

    private Bodies() {}

    /** The object {@code --body} names, or {@code {}}; a body that is not a JSON object is a usage error. */
    static ObjectNode object(CommandSpec spec, String body, InputStream stdin) {
        if (body == null) {
            return Json.object();
        }
        JsonNode node = json(spec, "--body", read(spec, body, stdin));
        if (!node.isObject()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--body must be a JSON object");
        }
        return (ObjectNode) node;
    }

    /** A JSON value given on the command line, e.g. {@code --data '{"status":"failed"}'}. */
    static JsonNode json(CommandSpec spec, String option, String text) {
        try {
            JsonNode node = Json.MAPPER.readTree(text);
            if (node == null || node.isMissingNode()) {
                throw new IOException("empty");
            }
            return node;
        } catch (IOException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " is not valid JSON: " + text);
        }
    }

    /** Sets {@code field} when the option was given; options win over the same field in {@code --body}. */
    static void put(ObjectNode body, String field, String value) {
        if (value != null) {
            body.put(field, value);
        }
    }

    private static String read(CommandSpec spec, String body, InputStream stdin) {
        try {
            if (body.equals("-")) {
                return new String(stdin.readAllBytes(), UTF_8);
            }
            if (body.startsWith("@")) {
                return Files.readString(Path.of(body.substring(1)), UTF_8);
            }
            return body;
        } catch (IOException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "cannot read the body from " + body + ": " + e.getMessage());
        }
    }

    /**
     * The observations {@code --batch} names (a file, or {@code -} for stdin): one JSON array of objects, or one JSON
     * object per line (blank lines skipped). Anything else is a usage error naming the line.
     */
    static java.util.List<ObjectNode> many(CommandSpec spec, String source, InputStream stdin) {
        String text = read(spec, source.equals("-") ? "-" : "@" + source, stdin);
        java.util.List<ObjectNode> out = new java.util.ArrayList<>();
        if (text.strip().startsWith("[")) {
            JsonNode array = json(spec, "--batch", text);
            for (JsonNode item : array) {
                if (!item.isObject()) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(), "--batch: each observation is a JSON object");
                }
                out.add((ObjectNode) item);
            }
        } else {
            String[] lines = text.split("\\R");
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].isBlank()) {
                    continue;
                }
                JsonNode item = json(spec, "--batch line " + (i + 1), lines[i]);
                if (!item.isObject()) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(), "--batch line " + (i + 1) + " is not a JSON object");
                }
                out.add((ObjectNode) item);
            }
        }
        if (out.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--batch holds no observation");
        }
        return out;
    }
}
