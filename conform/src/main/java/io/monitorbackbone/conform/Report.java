package io.monitorbackbone.conform;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The results of one run, as the exit code, human lines, or JSON. */
public final class Report {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final List<Result> results;
    private final String base;
    private final long ms;

    public Report(List<Result> results, String base, long ms) {
        this.results = List.copyOf(results);
        this.base = base;
        this.ms = ms;
    }

    public List<Result> results() {
        return results;
    }

    /** 1 when any check failed, else 0: a skipped check is not a failure, and says why it was skipped. */
    public int exitCode() {
        return count(Status.FAIL) > 0 ? 1 : 0;
    }

    public long count(Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** One line per check, then the summary. */
    public void printHuman(PrintStream out) {
        results.forEach(r -> printLine(out, r));
        out.println(summary());
    }

    static void printLine(PrintStream out, Result r) {
        out.printf(Locale.ROOT, "%-4s %-4s %s: %s (%d ms)%n", r.id(), r.status(), r.title(), r.reason(), r.ms());
    }

    public String summary() {
        return String.format(Locale.ROOT, "%d checks against %s: %d passed, %d failed, %d skipped in %.1f s",
                results.size(), base, count(Status.PASS), count(Status.FAIL), count(Status.SKIP), ms / 1000.0);
    }

    /** An array of {id, title, status, reason, ms}, in check order. */
    public String json() {
        ArrayNode array = JSON.createArrayNode();
        for (Result r : results) {
            ObjectNode o = array.addObject();
            o.put("id", r.id());
            o.put("title", r.title());
            o.put("status", r.status().name());
            o.put("reason", r.reason());
            o.put("ms", r.ms());
        }
        try {
            return JSON.writeValueAsString(array);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
