package io.monitorbackbone.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The results as a Markdown section, each number beside the target, and its place in docs/benchmarks.md. */
final class BenchReport {
    private BenchReport() {}

    static String markdown(JsonNode r) {
        JsonNode m = r.get("machine");
        JsonNode s = r.get("scenarios");
        List<String> out = new ArrayList<>();
        String id = r.get("id").asText();
        out.add("<!-- bench-run " + id + " -->");
        out.add("### `./mp bench`" + (r.get("quick").asBoolean() ? " --quick" : "") + ", "
                + r.get("date").asText() + ", commit " + r.get("commit").asText()
                + (r.get("dirty").asBoolean() ? " (uncommitted changes)" : ""));
        out.add("");
        out.add("- Machine: " + m.get("nproc").asInt() + " cores ("
                + m.get("cpu").asText() + "), " + m.get("memory_gib").asDouble() + " GiB memory, "
                + m.get("java").asText());
        out.add("- Load average " + m.get("load_average").asDouble() + " at start, "
                + r.get("load_average_end").asDouble() + " at end; "
                + r.get("seconds").asLong() + " s in all");
        out.add("- Server: " + r.get("server").asText()
                + (r.path("reused_servers").asBoolean()
                        ? "; scenarios 6, 7 and 9 ran on it (and 7 on the second gateway), not on fresh servers"
                        : ""));
        JsonNode warm = r.path("server_warm_up");
        out.add("- Warm-up of the main server before its scenarios: "
                + (warm.isMissingNode()
                        ? "none (its first windows include the JIT's compiling)"
                        : warm.path("seconds").asDouble() + " s, JIT CPU-s per 10 s round "
                                + warm.path("round_jit_cpu_s")
                                + (warm.path("settled").asBoolean()
                                        ? ", settled"
                                        : ", not settled within "
                                                + warm.path("budget_s").asLong() + " s")));
        out.add("- Errors: "
                + (r.get("errors").asLong() == 0
                        ? "none"
                        : r.get("errors").asLong() + " — this run is not a valid measurement"));
        out.add("");
        out.add("| # | scenario | result | target | met |");
        out.add("| --- | --- | --- | --- | --- |");
        row(
                out,
                s,
                "1",
                "sequential publish, 1 connection",
                x -> ms(x, "p50_ms") + " p50, " + ms(x, "p99_ms") + " p99, " + n(x, "publishes_per_s") + "/s",
                x -> "p50 ≤ 1 ms",
                x -> x.get("p50_ms").asDouble() <= 1.0);
        for (String part : List.of("one_monitor", "16_monitors")) {
            row(
                    out,
                    s,
                    "2",
                    "publish, 16 connections, " + part.replace('_', ' '),
                    x -> n(x.get(part), "requests_per_s") + " obs/s, " + ms(x.get(part), "p50_ms") + " p50, "
                            + ms(x.get(part), "p99_ms") + " p99",
                    x -> "≥ 14,000 obs/s",
                    x -> x.get(part).get("requests_per_s").asDouble() >= 14_000);
        }
        for (String limit : List.of("100", "1000")) {
            row(
                    out,
                    s,
                    "3",
                    "drain "
                            + String.format(
                                    Locale.ROOT,
                                    "%,d",
                                    s.path("3").path("backlog").asLong()) + ", one reader, `limit=" + limit + "`",
                    x -> n(x.get("limit_" + limit), "observations_per_s") + " obs/s (pages of "
                            + x.get("limit_" + limit).get("largest_page").asInt() + ")",
                    x -> limit.equals("1000") ? "≥ 32,000 obs/s" : "",
                    x -> limit.equals("1000")
                            ? x.get("limit_" + limit).get("observations_per_s").asDouble() >= 32_000
                            : null);
        }
        row(
                out,
                s,
                "4",
                "long-poll wake-up after the publish's answer (after it was sent)",
                x -> ms(x, "after_publish_answered_p50_ms")
                        + " p50, " + ms(x, "after_publish_answered_p99_ms") + " p99 ("
                        + ms(x, "after_publish_sent_p50_ms") + ", "
                        + ms(x, "after_publish_sent_p99_ms") + ")",
                x -> "p50 ≤ 5 ms",
                x -> x.get("after_publish_answered_p50_ms").asDouble() <= 5);
        for (String part : List.of("one_gateway", "two_gateways")) {
            row(
                    out,
                    s,
                    "5",
                    "lease claim → reply, " + part.replace('_', ' '),
                    x -> x.get(part).has("skipped")
                            ? x.get(part).get("skipped").asText()
                            : ms(x.get(part), "p50_ms") + " p50, " + ms(x.get(part), "p99_ms") + " p99",
                    x -> "p50 ≤ 20 ms",
                    x -> x.get(part).has("skipped")
                            ? null
                            : x.get(part).get("p50_ms").asDouble() <= 20);
        }
        for (String what : List.of("publish", "state")) {
            row(
                    out,
                    s,
                    "6",
                    what + " p50, "
                            + String.format(
                                    Locale.ROOT,
                                    "%,d",
                                    s.path("6").path("small_log").asLong()) + " vs "
                            + String.format(
                                    Locale.ROOT,
                                    "%,d",
                                    s.path("6").path("big_log").asLong()) + " observations",
                    x -> ms(x, what + "_small_p50_ms") + " vs " + ms(x, what + "_big_p50_ms") + " ("
                            + signed(x.get(what + "_p50_change_pct").asDouble()) + "%)",
                    x -> "≤ +10%",
                    x -> x.get(what + "_p50_change_pct").asDouble() <= 10);
        }
        row(
                out,
                s,
                "7",
                "RSS with " + s.path("7").path("monitors").asInt() + " monitors × "
                        + s.path("7").path("subscriptions_per_monitor").asInt()
                        + " subscriptions: all-in-one; gateway alone",
                x -> x.has("skipped")
                        ? x.get("skipped").asText()
                        : x.get("loaded").get("all_in_one_rss_mib").asLong() + " MiB; "
                                + x.get("loaded").get("gateway_rss_mib").asLong() + " MiB (idle "
                                + x.get("idle").get("all_in_one_rss_mib").asLong()
                                + "; " + x.get("idle").get("gateway_rss_mib").asLong() + ", after a full GC "
                                + x.get("loaded_after_full_gc")
                                        .get("all_in_one_rss_mib")
                                        .asLong() + "; "
                                + x.get("loaded_after_full_gc")
                                        .get("gateway_rss_mib")
                                        .asLong() + ")",
                x -> "all-in-one ≤ 1,024 MiB",
                x -> x.has("skipped")
                        ? null
                        : x.get("loaded").get("all_in_one_rss_mib").asDouble() <= 1024);
        row(
                out,
                s,
                "8",
                "raw Kafka producer, same record, `acks=all`: 1 thread waiting; 16 threads waiting; pipelined;"
                        + " 16 threads waiting, each into its own topic",
                x -> x.has("skipped")
                        ? x.get("skipped").asText()
                        : ms(x.get("sync_1_thread"), "p50_ms") + " p50, "
                                + ms(x.get("sync_1_thread"), "p99_ms") + " p99; "
                                + n(x.get("sync_16_threads"), "records_per_s") + "/s, "
                                + ms(x.get("sync_16_threads"), "p50_ms") + " p50; "
                                + n(x.get("pipelined"), "records_per_s")
                                + "/s; " + n(x.get("sync_16_threads_16_topics"), "records_per_s")
                                + "/s; scenario 2 (one monitor) is "
                                + x.path("http_to_raw_sync_pct").asDouble()
                                + "% of 16 threads into one topic, scenario 2 (16 monitors) "
                                + x.path("http_16_monitors_to_raw_sync_pct").asDouble() + "% of it and "
                                + x.path("http_16_monitors_to_raw_sync_16_topics_pct")
                                        .asDouble()
                                + "% of 16 threads into 16 topics",
                x -> "the ceiling",
                x -> null);
        row(
                out,
                s,
                "9",
                "idle server (all roles, embedded broker), CPU over each "
                        + s.path("9").path("window_s").asLong() + " s window",
                x -> x.has("skipped") ? x.get("skipped").asText() : idleCells(x),
                x -> "≤ 2% of one core",
                x -> x.has("skipped") ? null : x.get("pct_of_one_core").asDouble() <= 2);
        row(
                out,
                s,
                "9",
                "idle server (all roles) on a broker in a process of its own, CPU over each "
                        + s.path("9").path("window_s").asLong() + " s window",
                x -> x.has("skipped")
                        ? x.get("skipped").asText()
                        : x.path("on_a_broker_of_its_own").has("skipped")
                                ? x.path("on_a_broker_of_its_own")
                                        .get("skipped")
                                        .asText()
                                : ownBrokerCells(x.get("on_a_broker_of_its_own")),
                x -> "≤ 2% of one core",
                x -> x.has("skipped") || !x.path("on_a_broker_of_its_own").has("windows")
                        ? null
                        : x.get("on_a_broker_of_its_own").get("pct_of_one_core").asDouble() <= 2);
        for (String part : List.of("batch_100", "batch_1000")) {
            row(
                    out,
                    s,
                    "11",
                    "batch publish, " + s.path("11").path("connections").asInt() + " connections, one monitor, "
                            + part.substring(6) + " per batch",
                    x -> n(x.get(part), "observations_per_s") + " obs/s (" + n(x.get(part), "requests_per_s")
                            + " batches/s, " + ms(x.get(part), "p50_ms") + " p50), "
                            + (x.has(part + "_to_raw_pipelined_pct")
                                    ? x.get(part + "_to_raw_pipelined_pct").asDouble() + "% of pipelined raw"
                                    : "no raw rate in this run (scenario 8)"),
                    x -> "≥ 50% of pipelined raw",
                    x -> x.has(part + "_to_raw_pipelined_pct")
                            ? x.get(part + "_to_raw_pipelined_pct").asDouble() >= 50
                            : null);
        }
        for (String part : List.of("limit_200", "limit_5000_large_pages")) {
            row(
                    out,
                    s,
                    "12",
                    "drain "
                            + String.format(
                                    Locale.ROOT,
                                    "%,d",
                                    s.path("12").path("backlog").asLong()) + ", one reader, `"
                            + (part.equals("limit_200") ? "limit=200" : "limit=5000&large_pages=true") + "`",
                    x -> n(x.get(part), "observations_per_s") + " obs/s (pages of "
                            + x.get(part).get("largest_page").asInt() + ", pull p50 " + ms(x.get(part), "pull_p50_ms")
                            + ")",
                    x -> part.equals("limit_200") ? "" : "≥ 50,000 obs/s",
                    x -> part.equals("limit_200")
                            ? null
                            : x.get(part).get("observations_per_s").asDouble() >= 50_000);
        }
        row(
                out,
                s,
                "10",
                "Kafka bridge, the JIT warm-up: bursts into a monitor of its own (no target)",
                x -> x.has("skipped") || !x.has("jit_warm_up")
                        ? x.path("skipped").asText("not run")
                        : x.get("jit_warm_up").path("bursts").asInt() + " bursts ("
                                + (x.get("jit_warm_up").path("settled").asBoolean()
                                        ? "the compilers settled"
                                        : "the compilers not seen settled")
                                + ") of "
                                + n(x.get("jit_warm_up").get("first"), "records") + " records; the first (cold) at "
                                + burst(x.get("jit_warm_up").get("first"))
                                + (x.get("jit_warm_up").has("last")
                                        ? "; the last at "
                                                + burst(x.get("jit_warm_up").get("last"))
                                        : ""),
                x -> "",
                x -> null);
        for (String part : List.of("one_monitor", "16_monitors")) {
            row(
                    out,
                    s,
                    "10",
                    "Kafka bridge, records/s into " + part.replace('_', ' ')
                            + " (plain producer, pipelined, same record size as 8)",
                    x -> x.has("skipped")
                            ? x.get("skipped").asText()
                            : n(x.get(part), "records_per_s") + "/s, "
                                    + x.get(part).get("to_raw_pipelined_pct").asDouble()
                                    + "% of the raw producer's pipelined " + n(x, "raw_pipelined_mean_records_per_s")
                                    + "/s in this run (" + n(x.get("raw_pipelined"), "records_per_s") + " before, "
                                    + n(x.get("raw_pipelined_after"), "records_per_s") + " after); "
                                    + fmt(x.get(part)
                                            .get("server_cpu_us_per_record")
                                            .asDouble())
                                    + " µs server CPU per record (raw: "
                                    + fmt(x.get("raw_pipelined")
                                            .path("server_cpu_us_per_record")
                                            .asDouble(Double.NaN)) + "); folded into mp.state at "
                                    + String.format(
                                            Locale.ROOT,
                                            "%,d",
                                            x.get(part)
                                                    .path("folded_records_per_s")
                                                    .asLong())
                                    + "/s, "
                                    + fmt(x.get(part)
                                            .path("server_cpu_us_per_record_to_folded")
                                            .asDouble(Double.NaN))
                                    + " µs per record until then",
                    x -> "≥ 50% of the raw pipelined rate",
                    x -> x.has("skipped")
                            ? null
                            : x.get(part).get("to_raw_pipelined_pct").asDouble() >= 50);
        }
        for (String part : List.of("one_monitor", "16_monitors")) {
            Function<JsonNode, JsonNode> backlog =
                    x -> x.has("skipped") ? null : x.get(part).get("backlog");
            row(
                    out,
                    s,
                    "10",
                    "Kafka bridge, a backlog into " + part.replace('_', ' ')
                            + " (the bridges paused while it is written)",
                    x -> backlog.apply(x) == null ? x.path("skipped").asText("not run") : backlog(backlog.apply(x)),
                    x -> "≥ 50% of the raw pipelined rate",
                    x -> backlog.apply(x) == null
                            ? null
                            : backlog.apply(x).get("to_raw_pipelined_pct").asDouble() >= 50);
        }
        row(
                out,
                s,
                "10",
                "Kafka bridge, source append acknowledged → parked pull answered (from the send)",
                x -> x.has("skipped")
                        ? x.get("skipped").asText()
                        : ms(x.get("latency"), "after_append_acked_p50_ms") + " p50, "
                                + ms(x.get("latency"), "after_append_acked_p99_ms") + " p99 ("
                                + ms(x.get("latency"), "after_append_sent_p50_ms") + ", "
                                + ms(x.get("latency"), "after_append_sent_p99_ms") + "), "
                                + x.get("latency").get("after_append_acked_n").asInt() + " rounds",
                x -> "",
                x -> null);
        for (int i = 0; i < s.path("13").path("cases").size(); i++) {
            int at = i;
            row(
                    out,
                    s,
                    "13",
                    "readers over " + s.at("/13/cases/" + i + "/gateways").asInt() + " gateway(s) behind HAProxy, "
                            + s.at("/13/readers").asInt() + " readers, "
                            + s.at("/13/monitors").asInt()
                            + " monitors, " + s.at("/13/publishes_per_s_target").asInt() + " publishes/s",
                    x -> scaleCells(x.get("cases").get(at)),
                    x -> "CPU per delivered and bytes per gateway flat in N",
                    x -> null);
        }
        out.add("");
        out.add("CPU seconds spent during the timed windows (2 cores give 2 s per second):");
        out.add("");
        out.add("| scenario | window s | load generator | server(s) |");
        out.add("| --- | --- | --- | --- |");
        cpu(out, s, "1", "1 sequential publish", s.path("1"));
        cpu(out, s, "2", "2 one monitor", s.path("2").path("one_monitor"));
        cpu(out, s, "2", "2 16 monitors", s.path("2").path("16_monitors"));
        cpu(out, s, "3", "3 drain limit=1000", s.path("3").path("limit_1000"));
        cpu(out, s, "11", "11 batches of 100", s.path("11").path("batch_100"));
        cpu(out, s, "11", "11 batches of 1000", s.path("11").path("batch_1000"));
        cpu(out, s, "12", "12 drain limit=5000 large_pages", s.path("12").path("limit_5000_large_pages"));
        for (JsonNode c : s.path("13").path("cases")) {
            out.add("| 13 " + c.get("gateways").asInt() + " gateway(s) | "
                    + fmt(c.get("window_s").asDouble()) + " | "
                    + fmt(c.get("client_cpu_s").asDouble()) + " | "
                    + fmt(c.get("gateway_cpu_s").asDouble())
                    + " (gateways) + " + fmt(c.get("core_cpu_s").asDouble()) + " (broker, projector, leases) |");
        }
        cpu(out, s, "10", "10 raw producer, pipelined", s.path("10").path("raw_pipelined"));
        cpu(out, s, "10", "10 bridge, one monitor", s.path("10").path("one_monitor"));
        cpu(out, s, "10", "10 bridge, 16 monitors", s.path("10").path("16_monitors"));
        out.add("<!-- /bench-run -->");
        return String.join("\n", out) + "\n";
    }

    /** One case of scenario 13: what the readers got, how fast, and what each gateway cost. */
    private static String scaleCells(JsonNode c) {
        return n(c, "delivered_obs_per_s") + " delivered obs/s (" + n(c, "published_per_s") + " published/s × readers: "
                + n(c, "delivered_expected_per_s") + "); pull (`wait=0`) " + ms(c, "pull_p50_ms") + " p50, "
                + ms(c, "pull_p99_ms") + " p99; publish sent → reader " + ms(c, "delivery_p50_ms") + " p50, "
                + ms(c, "delivery_p99_ms") + " p99; publish on gw1 → parked pull on gw"
                + (c.get("gateways").asInt() > 1 ? 2 : 1) + " " + ms(c, "wake_across_p50_ms") + " p50, "
                + ms(c, "wake_across_p99_ms") + " p99; gateway CPU per delivered "
                + fmt(c.get("gateway_cpu_us_per_delivered").asDouble()) + " µs ("
                + fmt(c.get("gateway_cpu_us_per_delivered_to_first").asDouble()) + "× the first case), above idle "
                + fmt(c.get("gateway_cpu_above_idle_us_per_delivered").asDouble()) + " µs ("
                + fmt(c.get("gateway_cpu_above_idle_us_per_delivered_to_first").asDouble())
                + "×); broker → each gateway " + n(c, "incoming_bytes_per_gateway_per_s") + " B/s, "
                + n(c, "incoming_bytes_per_gateway_per_published") + " B per published observation ("
                + fmt(c.get("incoming_bytes_per_gateway_per_published_to_first").asDouble()) + "×)";
    }

    /** Each window's share of one core and its three busiest thread groups. */
    private static String idleCells(JsonNode x) {
        List<String> parts = new ArrayList<>();
        for (JsonNode w : x.get("windows")) {
            parts.add(fmt(w.get("pct_of_one_core").asDouble()) + "% ("
                    + fmt(w.get("server_cpu_s").asDouble())
                    + " CPU-s, load " + fmt(w.get("load_average_start").asDouble()) + "; "
                    + busiest(w, 3) + "); its broker alone beside it "
                    + fmt(w.path("bare_broker_pct_of_one_core").asDouble()) + "%, the server above that "
                    + fmt(w.path("above_bare_broker_pct_of_one_core").asDouble()) + "%");
        }
        return String.join("; ", parts);
    }

    /** Each window's share of one core for a server on a broker of its own, its busiest groups, and its broker's. */
    private static String ownBrokerCells(JsonNode x) {
        List<String> parts = new ArrayList<>();
        for (JsonNode w : x.get("windows")) {
            parts.add(fmt(w.get("pct_of_one_core").asDouble()) + "% ("
                    + fmt(w.get("server_cpu_s").asDouble())
                    + " CPU-s, load " + fmt(w.get("load_average_start").asDouble()) + "; " + busiest(w, 3)
                    + "); its broker "
                    + fmt(w.path("its_broker_pct_of_one_core").asDouble()) + "%");
        }
        return String.join("; ", parts);
    }

    private static String busiest(JsonNode window, int top) {
        List<String> groups = new ArrayList<>();
        var it = window.get("cpu_s_by_group").fields();
        while (it.hasNext() && groups.size() < top) {
            var e = it.next();
            groups.add(e.getKey() + " " + fmt(e.getValue().asDouble()) + " s");
        }
        return String.join(", ", groups);
    }

    private static void cpu(List<String> out, JsonNode s, String key, String name, JsonNode x) {
        if (!s.has(key) || x.isMissingNode()) {
            return;
        }
        double window = x.has("window_s")
                ? x.get("window_s").asDouble()
                : x.path("seconds").asDouble(Double.NaN);
        out.add("| " + name + " | " + fmt(window) + " | "
                + fmt(x.path("client_cpu_s").asDouble(Double.NaN)) + " | "
                + fmt(x.path("server_cpu_s").asDouble(Double.NaN)) + " |");
    }

    interface Cell<T> {
        T of(JsonNode x);
    }

    private static void row(
            List<String> out,
            JsonNode s,
            String key,
            String name,
            Cell<String> result,
            Cell<String> target,
            Cell<Boolean> met) {
        if (!s.has(key)) {
            return;
        }
        JsonNode x = s.get(key);
        if (x.has("failed")) {
            out.add("| " + key + " | " + name + " | failed: "
                    + x.get("failed").asText().replace('|', '/') + " | | no |");
            return;
        }
        Boolean ok;
        String text;
        try {
            text = result.of(x);
            ok = met.of(x);
        } catch (RuntimeException e) {
            text = "n/a";
            ok = null;
        }
        out.add("| " + key + " | " + name + " | " + text + " | " + target.of(x) + " | "
                + (ok == null ? "" : ok ? "yes" : "**no**") + " |");
    }

    /** Scenario 10's backlog into one monitor or 16: its rate, its share of the raw rate, the pause and the resume. */
    private static String backlog(JsonNode b) {
        return n(b, "records_per_s") + "/s, " + b.get("to_raw_pipelined_pct").asDouble()
                + "% of the raw producer's pipelined rate in this run; "
                + fmt(b.get("server_cpu_us_per_record").asDouble()) + " µs server CPU per record; first record "
                + ms(b, "resume_to_first_ms") + " after the resume; every bridge stopped "
                + ms(b, "pause_to_stopped_ms")
                + " after the first pause was sent";
    }

    /** A warm-up burst of scenario 10: its rate and the server's CPU per record. */
    private static String burst(JsonNode b) {
        return n(b, "records_per_s") + "/s, "
                + fmt(b.get("server_cpu_us_per_record").asDouble()) + " µs server CPU per record";
    }

    private static String ms(JsonNode x, String field) {
        return fmt(x.get(field).asDouble()) + " ms";
    }

    private static String n(JsonNode x, String field) {
        return String.format(Locale.ROOT, "%,d", x.get(field).asLong());
    }

    private static String fmt(double v) {
        return Double.isNaN(v)
                ? "n/a"
                : v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String signed(double v) {
        return (v >= 0 ? "+" : "") + String.format(Locale.ROOT, "%.1f", v);
    }

    /** Replaces the section of the same run id, or appends one. */
    static void updateDocs(Path docs, String section, String id) {
        try {
            String text = Files.exists(docs) ? Files.readString(docs) : "# Benchmarks\n";
            String begin = "<!-- bench-run " + id + " -->";
            int at = text.indexOf(begin);
            if (at >= 0) {
                int end = text.indexOf("<!-- /bench-run -->", at);
                text = text.substring(0, at) + section.strip() + text.substring(end + "<!-- /bench-run -->".length());
            } else {
                text = text.stripTrailing() + "\n\n" + section;
            }
            Files.writeString(docs, text.endsWith("\n") ? text : text + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
