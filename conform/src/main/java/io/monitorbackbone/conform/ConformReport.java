package io.monitorbackbone.conform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The results of one run, as the exit code, human lines, or JSON. A check stricter than the protocol's suite (C17+) is
 * reported as such, and its FAIL does not fail the run: the server may still conform to the protocol.
 */
public final class ConformReport {
    static final String STRICTER = "stricter than the protocol";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final List<Result> results;
    private final String base;
    private final long ms;
    private final Leftovers.Outcome cleanup;

    ConformReport(List<Result> results, String base, long ms, Leftovers.Outcome cleanup) {
        this.results = List.copyOf(results);
        this.base = base;
        this.ms = ms;
        this.cleanup = cleanup;
    }

    public List<Result> results() {
        return results;
    }

    /** 1 when a protocol-level check failed, else 0: a skipped check is not a failure, and says why it was skipped. */
    public int exitCode() {
        return results.stream().anyMatch(r -> r.status() == Status.FAIL && !r.stricter()) ? 1 : 0;
    }

    public long count(Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** One line per check, then the summary and what was retired. */
    public void printHuman(PrintStream out) {
        results.forEach(r -> printLine(out, r));
        out.println(summary());
        out.println(cleanup.line());
    }

    static void printLine(PrintStream out, Result r) {
        out.printf(
                Locale.ROOT,
                "%-4s %-4s %s%s: %s (%d ms)%n",
                r.id(),
                r.status(),
                r.stricter() ? "[" + STRICTER + "] " : "",
                r.title(),
                r.reason(),
                r.ms());
    }

    public String summary() {
        String all = String.format(
                Locale.ROOT,
                "%d checks against %s: %d passed, %d failed, %d skipped in %.1f s",
                results.size(),
                base,
                count(Status.PASS),
                count(Status.FAIL),
                count(Status.SKIP),
                ms / 1000.0);
        List<Result> stricter = results.stream().filter(Result::stricter).toList();
        if (stricter.isEmpty()) {
            return all;
        }
        long failed = stricter.stream().filter(r -> r.status() == Status.FAIL).count();
        return all
                + String.format(
                        Locale.ROOT,
                        "; %d of them %s (%s), %d failed%s",
                        stricter.size(),
                        STRICTER,
                        String.join(", ", stricter.stream().map(Result::id).toList()),
                        failed,
                        failed == 0 ? "" : ", which does not fail the run");
    }

    /**
     * {@code {base, results: [{id, title, status, reason, ms, stricter_than_protocol}], passed, failed, skipped, ms,
     * cleanup: {monitors_retired, subscriptions_retired, not_retired}}}, results in check order.
     */
    public String json() {
        ObjectNode top = JSON.createObjectNode();
        top.put("base", base);
        ArrayNode array = top.putArray("results");
        for (Result r : results) {
            ObjectNode o = array.addObject();
            o.put("id", r.id());
            o.put("title", r.title());
            o.put("status", r.status().name());
            o.put("reason", r.reason());
            o.put("ms", r.ms());
            o.put("stricter_than_protocol", r.stricter());
        }
        top.put("passed", count(Status.PASS));
        top.put("failed", count(Status.FAIL));
        top.put("skipped", count(Status.SKIP));
        top.put("ms", ms);
        ObjectNode c = top.putObject("cleanup");
        c.put("monitors_retired", cleanup.monitors());
        c.put("subscriptions_retired", cleanup.subscriptions());
        ArrayNode notRetired = c.putArray("not_retired");
        cleanup.notRetired().forEach(notRetired::add);
        try {
            return JSON.writeValueAsString(top);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
