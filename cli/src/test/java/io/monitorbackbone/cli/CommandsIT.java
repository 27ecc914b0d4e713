package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.testsupport.FreePorts;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one-request commands as a user types them: the server's JSON on stdout, and the exit status says how it went. */
class CommandsIT {

    private final URI base = CliServer.http().base();

    @Test
    void aMonitorCreatedWithAKafkaSourceStoresItsBridgeSettings() {
        String id = "bridged-" + Long.toHexString(System.nanoTime());
        JsonNode created = json(ok(
                "monitor",
                "create",
                "--id",
                id,
                "--types",
                "com.example.order",
                "--source",
                "kafka:orders-" + id,
                "--source-settings",
                "{\"format\":\"json\",\"subject\":\"/order_id\"}"));
        JsonNode source = created.at("/monitor/source");
        assertThat(source.get("kind").asText()).isEqualTo("feed");
        assertThat(source.get("ref").asText()).isEqualTo("kafka:orders-" + id);
        assertThat(source.at("/settings/subject").asText()).isEqualTo("/order_id");
        assertThat(source.at("/settings/actor").asText()).isEqualTo("probe:kafka/orders-" + id);
    }

    @Test
    void theReadmeWalkthroughWorksWithMpAlone() {
        String id = "walk-" + Long.toHexString(System.nanoTime());

        JsonNode created =
                json(ok("monitor", "create", "--id", id, "--visibility", "public", "--types", "com.example.ci.run"));
        String owner = created.get("owner_token").asText();
        JsonNode published = json(ok(
                "publish",
                "--monitor",
                id,
                "--token",
                owner,
                "--type",
                "com.example.ci.run",
                "--subject",
                "build-412",
                "--actor",
                "probe:ci",
                "--origin",
                "probe",
                "--data",
                "{\"status\":\"failed\"}"));
        JsonNode subscribed =
                json(ok("subscribe", "--monitor", id, "--subscriber", "agent:claude", "--capabilities", "observe"));
        String subscription = subscribed.at("/subscription/id").asText();
        String reader = subscribed.get("token").asText();
        JsonNode pulled = json(
                ok("pull", "--subscription", subscription, "--token", reader, "--filter", "types=com.example.ci.run"));
        JsonNode acked = json(ok(
                "ack",
                "--subscription",
                subscription,
                "--token",
                reader,
                "--cursor",
                pulled.get("next").asText()));
        JsonNode state = json(ok("state", "--monitor", id));
        JsonNode listed = json(ok("monitors"));
        JsonNode got = json(ok("monitor", "get", id));

        assertThat(created.at("/monitor/id").asText()).isEqualTo(id);
        assertThat(published.get("seq").asLong()).isEqualTo(2);
        assertThat(published.at("/observation/data/status").asText()).isEqualTo("failed");
        assertThat(pulled.get("observations"))
                .extracting(o -> o.get("subject").asText())
                .containsExactly("build-412");
        assertThat(acked.get("cursor").asLong())
                .isEqualTo(pulled.get("next").asLong())
                .isEqualTo(4);
        assertThat(state.get("monitor").asText()).isEqualTo(id);
        assertThat(state.get("head").asLong()).isEqualTo(3);
        assertThat(listed.get("monitors"))
                .extracting(mon -> mon.get("id").asText())
                .contains(id);
        assertThat(got.get("types")).extracting(JsonNode::asText).containsExactly("com.example.ci.run");
    }

    @Test
    void publishBatchSendsManyFromAFileInRequestsWithinTheLimitsAndSaysWhetherAllWereAccepted(
            @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        String id = "batch-" + Long.toHexString(System.nanoTime());
        String owner = json(ok("monitor", "create", "--id", id, "--visibility", "public"))
                .get("owner_token")
                .asText();
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 1_500; i++) {
            lines.append("{\"type\":\"demo.note\",\"subject\":\"s-").append(i).append("\"}\n");
        }
        Path many = dir.resolve("many.jsonl");
        java.nio.file.Files.writeString(many, lines);
        Path mixed = dir.resolve("mixed.json");
        java.nio.file.Files.writeString(mixed, "[{\"subject\":\"x\"},{\"subject\":\"y\",\"tier\":\"bogus\"}]");

        CliProcess.Finished all = CliProcess.run(
                base, "publish", "--monitor", id, "--token", owner, "--batch", many.toString(), "--actor", "probe:ci");
        CliProcess.Finished some = CliProcess.run(
                base, "publish", "--monitor", id, "--token", owner, "--batch", mixed.toString(), "--type", "demo.note");

        assertThat(all.exit()).as(all.stderr()).isZero();
        List<JsonNode> replies = all.stdout().stream()
                .map(l -> Json.read(l.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .toList();
        assertThat(replies).extracting(r -> r.get("accepted").asInt()).containsExactly(1_000, 500);
        long first = replies.get(0).at("/results/0/seq").asLong();
        long last = replies.get(1).at("/results/499/seq").asLong();
        assertThat(last).isGreaterThanOrEqualTo(first + 1_499);
        assertThat(some.exit()).as("an observation was refused").isEqualTo(1);
        JsonNode mixedReply = Json.read(some.out().strip().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(mixedReply.at("/results/0/status").asInt()).isEqualTo(201);
        assertThat(mixedReply.at("/results/1/code").asText()).isEqualTo("UNKNOWN_VOCABULARY");
        assertThat(mixedReply.at("/results/1/rejected_seq").asLong()).isPositive();
    }

    @Test
    void aRefusalPrintsTheErrorBodyOnStdoutAndExitsOne() {
        String id = "refuse-" + Long.toHexString(System.nanoTime());
        ok("monitor", "create", "--id", id, "--visibility", "public");

        CliProcess.Finished refused =
                CliProcess.run(base, "publish", "--monitor", id, "--token", "not-the-owner", "--type", "demo.x");

        assertThat(refused.exit()).isEqualTo(1);
        assertThat(json(refused).get("code").asText()).isEqualTo("UNAUTHORIZED");
        assertThat(refused.stderr()).isEmpty();
    }

    @Test
    void anAckBelowTheCursorIsRefusedWithItsCode() {
        String id = "backwards-" + Long.toHexString(System.nanoTime());
        ok("monitor", "create", "--id", id, "--visibility", "public");
        JsonNode subscribed = json(ok("subscribe", "--monitor", id, "--subscriber", "agent:b"));
        String subscription = subscribed.at("/subscription/id").asText();
        String token = subscribed.get("token").asText();
        ok("ack", "--subscription", subscription, "--token", token, "--cursor", "2");

        CliProcess.Finished refused =
                CliProcess.run(base, "ack", "--subscription", subscription, "--token", token, "--cursor", "1");

        assertThat(refused.exit()).isEqualTo(1);
        assertThat(json(refused).get("code").asText()).isEqualTo("CURSOR_BACKWARDS");
    }

    @Test
    void seekAndSubscribeTakeATime() {
        String id = "timed-" + Long.toHexString(System.nanoTime());
        ok("monitor", "create", "--id", id, "--visibility", "public");
        JsonNode subscribed = json(ok("subscribe", "--monitor", id, "--subscriber", "agent:t"));
        String subscription = subscribed.at("/subscription/id").asText();
        String token = subscribed.get("token").asText();
        String[] seek = {"seek", "--subscription", subscription, "--token", token, "--reason", "cli"};

        JsonNode toStart = json(ok(with(seek, "--time", "2000-01-01T00:00:00Z")));
        JsonNode pastHead = json(ok(with(seek, "--time", "2999-01-01T00:00:00+01:00")));
        JsonNode bySeq = json(ok(with(seek, "--cursor", "2")));
        JsonNode early =
                json(ok("subscribe", "--monitor", id, "--subscriber", "agent:t2", "--from", "2000-01-01T00:00:00Z"));
        CliProcess.Finished badTime = CliProcess.run(base, with(seek, "--time", "yesterday"));
        CliProcess.Finished both = CliProcess.run(base, with(seek, "--time", "2000-01-01T00:00:00Z", "--cursor", "1"));
        CliProcess.Finished neither = CliProcess.run(base, seek);

        assertThat(toStart.get("cursor").asLong()).isEqualTo(1);
        assertThat(toStart.get("time").asText()).isEqualTo("2000-01-01T00:00:00Z");
        assertThat(pastHead.get("cursor").asLong())
                .as("one past the head: the configured, subscribed and seek rows")
                .isEqualTo(4);
        assertThat(bySeq.get("cursor").asLong()).isEqualTo(2);
        assertThat(early.at("/subscription/cursor").asLong()).isEqualTo(1);
        assertThat(badTime.exit()).isEqualTo(1);
        assertThat(json(badTime).get("code").asText()).isEqualTo("INVALID");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(neither.exit()).isEqualTo(2);
        assertThat(neither.stderr()).contains("give one of --cursor and --time");
    }

    private static String[] with(String[] args, String... more) {
        String[] out = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, out, args.length, more.length);
        return out;
    }

    @Test
    void noServerIsExitStatusThreeAndOneLineOnStderr() {
        URI nowhere = URI.create("http://127.0.0.1:" + FreePorts.next());

        CliProcess.Finished failed = CliProcess.run(nowhere, "state", "--monitor", "x");

        assertThat(failed.exit()).isEqualTo(3);
        assertThat(failed.stdout()).isEmpty();
        assertThat(failed.stderr().strip())
                .startsWith("mp: cannot connect to " + nowhere)
                .doesNotContain("\n");
    }

    @Test
    void aBadCommandLineIsExitStatusTwoAndSendsNothing() {
        CliProcess.Finished noToken = CliProcess.run(base, "ack", "--subscription", "sub-x", "--cursor", "1");
        CliProcess.Finished badJson =
                CliProcess.run(base, "publish", "--monitor", "x", "--token", "t", "--data", "{nope");

        assertThat(noToken.exit()).isEqualTo(2);
        assertThat(noToken.stderr()).contains("needs a token");
        assertThat(badJson.exit()).isEqualTo(2);
        assertThat(badJson.stderr()).contains("--data is not valid JSON");
    }

    @Test
    void theRepositorysMpScriptHandsClientCommandsToTheJar() {
        Path script = Path.of(System.getProperty("mp.repo.root"), "mp");
        CliProcess.Finished listed;
        try (CliProcess p =
                CliProcess.startCommand(List.of(script.toString(), "monitors"), Map.of("MP_BASE", base.toString()))) {
            listed = p.finish();
        }

        assertThat(listed.exit()).as(listed.stderr()).isZero();
        assertThat(json(listed).has("monitors")).isTrue();
    }

    private String ok(String... args) {
        CliProcess.Finished done = CliProcess.run(base, args);
        assertThat(done.exit())
                .as("mp %s\nstdout: %s\nstderr: %s", String.join(" ", args), done.out(), done.stderr())
                .isZero();
        return done.out();
    }

    private static JsonNode json(CliProcess.Finished done) {
        return json(done.out());
    }

    private static JsonNode json(String text) {
        assertThat(text.lines()).as("one JSON document on one line").hasSize(1);
        return Json.read(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
