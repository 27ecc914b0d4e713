package io.monitorbackbone.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.testsupport.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness against the packaged server: every scenario answers with numbers and no errors. Never a timing assertion. */
class BenchQuickIT {

    @TempDir
    Path dir;

    @Test
    void aQuickRunHasEveryScenarioWithNumbersAndNoErrors() throws Exception {
        Path out = dir.resolve("quick.json");
        String jar = System.getProperty("mp.app.jar");

        JsonNode r = Bench.run(Map.of(
                "quick",
                "true",
                "out",
                out.toString(),
                "jar",
                jar,
                "no-docs",
                "true",
                // One round of the warm-up, which a quick run otherwise skips.
                "warm-server",
                "1",
                // A smoke test, not a measurement: the servers run as the suite's other servers do (C1 only),
                // which costs this test a third less CPU than the optimising compiler.
                "server-opts",
                String.join(" ", ServerProcess.JVM_OPTIONS),
                "root",
                Path.of("..").toAbsolutePath().normalize().toString()));

        assertThat(r.get("errors").asLong()).as(r.toPrettyString()).isZero();
        JsonNode written = BenchClient.JSON.readTree(Files.readString(out));
        assertThat(written.get("id")).isEqualTo(r.get("id"));
        assertThat(written.get("scenarios").toString())
                .isEqualTo(r.get("scenarios").toString());
        JsonNode s = r.get("scenarios");
        assertThat(s.fieldNames())
                .toIterable()
                .containsExactlyInAnyOrder("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13");
        List<String> numbers = List.of(
                "/1/p50_ms",
                "/1/p99_ms",
                "/2/one_monitor/requests_per_s",
                "/2/16_monitors/p99_ms",
                "/3/limit_100/observations_per_s",
                "/3/limit_1000/observations_per_s",
                "/4/after_publish_answered_p50_ms",
                "/5/one_gateway/p50_ms",
                "/5/two_gateways/p50_ms",
                "/6/publish_small_p50_ms",
                "/6/state_big_p50_ms",
                "/7/loaded/all_in_one_rss_mib",
                "/7/loaded/gateway_rss_mib",
                "/8/sync_16_threads/records_per_s",
                "/8/sync_16_threads_16_topics/records_per_s",
                "/8/pipelined/records_per_s",
                "/9/windows/0/server_cpu_s",
                "/9/pct_of_one_core",
                "/9/bare_broker_pct_of_one_core",
                "/9/windows/0/bare_broker_cpu_s",
                "/11/batch_100/observations_per_s",
                "/11/batch_1000/observations_per_s",
                "/11/batch_1000_to_raw_pipelined_pct",
                "/12/limit_200/observations_per_s",
                "/12/limit_5000_large_pages/observations_per_s",
                "/10/raw_pipelined/records_per_s",
                "/10/one_monitor/records_per_s",
                "/10/one_monitor/to_raw_pipelined_pct",
                "/10/one_monitor/server_cpu_us_per_record",
                "/10/one_monitor/folded_records_per_s",
                "/10/one_monitor/server_cpu_us_per_record_to_folded",
                "/10/16_monitors/folded_records_per_s",
                "/10/16_monitors/records_per_s",
                "/10/16_monitors/to_raw_pipelined_pct",
                "/10/latency/after_append_acked_p50_ms",
                "/10/latency/after_append_acked_p99_ms",
                "/13/cases/0/published_per_s",
                "/13/cases/0/delivered_obs_per_s",
                "/13/cases/0/publish_p50_ms",
                "/13/cases/0/delivery_p50_ms",
                "/13/cases/0/delivery_p99_ms",
                "/13/cases/0/pull_p50_ms",
                "/13/cases/0/pull_p99_ms",
                "/13/cases/0/wake_across_p50_ms",
                "/13/cases/0/wake_across_p99_ms",
                "/13/cases/0/gateway_cpu_us_per_delivered",
                "/13/cases/0/incoming_bytes_per_gateway_per_s",
                "/13/cases/0/incoming_bytes_per_gateway_per_published",
                "/13/cases/0/table_fetched_bytes_per_gateway_per_s",
                "/13/cases/0/per_gateway/0/requests_per_s",
                "/13/cases/0/per_gateway/1/requests_per_s",
                "/13/cases/0/per_gateway/0/cpu_s",
                "/13/cases/0/per_gateway/1/cpu_s",
                "/13/cases/0/per_gateway/0/incoming_bytes_per_s",
                "/13/cases/0/per_gateway/1/incoming_bytes_per_s");
        for (String pointer : numbers) {
            JsonNode v = s.at(pointer);
            assertThat(v.isNumber()).as(pointer + " in " + s.toPrettyString()).isTrue();
            assertThat(v.asDouble()).as(pointer).isPositive();
        }
        assertThat(r.at("/server_warm_up/round_jit_cpu_s").size())
                .as(r.toPrettyString())
                .isEqualTo(1);
        assertThat(r.at("/server_warm_up/seconds").asDouble()).isPositive();
        for (String pointer : List.of(
                "/1/server_jit_cpu_s",
                "/2/one_monitor/server_jit_cpu_s",
                "/11/batch_100/server_jit_cpu_s",
                "/12/limit_200/server_jit_cpu_s")) {
            assertThat(s.at(pointer).isNumber())
                    .as(pointer + " in " + s.toPrettyString())
                    .isTrue();
            assertThat(s.at(pointer).asDouble()).as(pointer).isNotNegative();
        }
        assertThat(s.at("/12/limit_5000_large_pages/largest_page").asInt())
                .as("a reader that asks for large pages gets pages past max_limit")
                .isGreaterThan(200);
        assertThat(s.at("/12/limit_200/largest_page").asInt()).isEqualTo(200);
        assertThat(r.get("reused_servers").asBoolean())
                .as("a quick run starts no fresh server for 6, 7 and 9")
                .isTrue();
        assertThat(BenchReport.markdown(r))
                .contains("not on fresh servers")
                .contains("| 8 |", "| 9 |", "| 10 |", "| 11 |", "| 12 |", "| 13 |")
                .doesNotContain("failed");
        // The idle window's CPU is split by thread, the broker's threads among them (it runs in the server's JVM).
        assertThat(s.at("/9/windows/0/cpu_s_by_thread").size())
                .as(s.toPrettyString())
                .isPositive();
        // Beside it, the same broker alone in a process of its own: its threads are Kafka's, none of the server's.
        assertThat(s.at("/9/windows/0/bare_broker_cpu_s_by_thread").toString())
                .as(s.at("/9").toPrettyString())
                .doesNotContain("mp-", "vert.x");
        assertThat(s.at("/10/latency/after_append_acked_n").asInt()).isPositive();
        // 13, as a quick run does it: two gateways behind HAProxy, both of them sent requests and reading from Kafka.
        assertThat(s.at("/13/cases").size()).as(s.at("/13").toPrettyString()).isEqualTo(1);
        assertThat(s.at("/13/cases/0/gateways").asInt()).isEqualTo(2);
        assertThat(s.at("/13/cases/0/per_gateway").size()).isEqualTo(2);
        assertThat(s.at("/13/cases/0/wake_across_n").asInt())
                .as("every round of publish on one gateway, wake on the other")
                .isEqualTo(ScaleBench.Sizes.quick().wakeRounds());
    }
}
