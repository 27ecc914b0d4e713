package io.monitorbackbone.conform;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/** Runs checks one after the other, each with its own {@link CheckClient}, and turns whatever happens into a {@link Result}. */
final class Runner {
    private static final int REASON_LIMIT = 400;

    private Runner() {}

    /** A prefix for every id this run creates, so that runs against the same server never meet. */
    static String runId() {
        byte[] random = new byte[3];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** A whole run: each check's result, in order, and what retiring the run's monitors and subscriptions came to. */
    record Run(List<Result> results, Leftovers.Outcome cleanup) {}

    /**
     * Runs the checks in order; after each one, whatever it passed, failed or skipped, retires the monitors and
     * subscriptions it created (outside the check's time).
     */
    static Run run(List<Check> checks, Options options, Consumer<Result> each) {
        String runId = runId();
        Leftovers leftovers = new Leftovers();
        Wire cleanup = new Wire(options.base(), leftovers);
        List<Result> results = new ArrayList<>();
        for (Check check : checks) {
            Result result;
            try {
                result = run(check, new CheckClient(new Wire(options.base(), leftovers), options, runId, check.id()));
            } finally {
                leftovers.retire(cleanup);
            }
            results.add(result);
            each.accept(result);
        }
        return new Run(results, leftovers.outcome());
    }

    static Result run(Check check, CheckClient api) {
        long start = System.nanoTime();
        Status status;
        String reason;
        try {
            reason = check.body().run(api);
            status = Status.PASS;
        } catch (CheckSkipped e) {
            status = Status.SKIP;
            reason = e.getMessage();
        } catch (Wire.SchemaViolation e) {
            status = Status.FAIL;
            reason = "schema: " + e.getMessage();
        } catch (CheckFailed e) {
            status = Status.FAIL;
            reason = e.getMessage();
        } catch (Exception | AssertionError e) {
            status = Status.FAIL;
            reason = "the check itself broke: " + e;
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        return new Result(check.id(), check.title(), status, oneLine(reason), ms, check.stricter());
    }

    static String oneLine(String reason) {
        String line = reason == null || reason.isBlank()
                ? "(no reason given)"
                : reason.replaceAll("\\s+", " ").trim();
        return line.length() <= REASON_LIMIT ? line : line.substring(0, REASON_LIMIT) + "…";
    }
}
