package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.FreePorts;
import io.monitorbackbone.testsupport.Http;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code mp watch} as a real process against a real server on a real broker, its stdout read line by line. */
class WatchIT {
    static final Duration LINE = Duration.ofSeconds(30);
    static final Duration EXIT = Duration.ofSeconds(30);

    private final Fixture fixture = new Fixture(CliServer.http());

    @Test
    void threePublishedObservationsPrintThreeObsLinesAndANextLine() {
        Fixture.Monitor m = fixture.monitor("three");
        long s1 = fixture.publish(m, "s-1");
        long s2 = fixture.publish(m, "s-2");
        long s3 = fixture.publish(m, "s-3");
        Fixture.Reader reader = fixture.subscribe(m, "agent:watcher");

        try (CliProcess watch = CliProcess.start(
                fixture.base(), "watch", "--subscription", reader.subscription(), "--token", reader.token())) {
            List<String> lines =
                    List.of(watch.nextLine(LINE), watch.nextLine(LINE), watch.nextLine(LINE), watch.nextLine(LINE));

            assertThat(lines.get(0))
                    .startsWith("OBS seq=" + s1 + " type=com.example.ci.run subject=s-1 tier=measured origin=probe"
                            + " actor=probe:ci redelivered=false data={\"status\":\"failed\",");
            assertThat(lines.get(1)).startsWith("OBS seq=" + s2 + " ").contains(" subject=s-2 ");
            assertThat(lines.get(2)).startsWith("OBS seq=" + s3 + " ").contains(" subject=s-3 ");
            // The subscription's own `subscribed` row follows s-3; the filter skips it, and NEXT reads past it.
            assertThat(lines.get(3)).isEqualTo("NEXT " + fixture.afterHead(m));
        }
    }

    @Test
    void aSecondRunWithoutAnAckShowsTheSameObservationsAsRedelivered() {
        Fixture.Monitor m = fixture.monitor("again");
        fixture.publish(m, "s-1");
        fixture.publish(m, "s-2");
        fixture.publish(m, "s-3");
        Fixture.Reader reader = fixture.subscribe(m, "agent:forgetful");
        CliProcess.Finished first = watchOnce(reader);

        CliProcess.Finished second = watchOnce(reader);

        assertThat(first.exit()).isZero();
        assertThat(first.stdout()).hasSize(4).last().isEqualTo("NEXT " + fixture.afterHead(m));
        assertThat(first.stdout().subList(0, 3))
                .allSatisfy(line -> assertThat(line).contains(" redelivered=false "));
        assertThat(second.exit()).isZero();
        assertThat(second.stdout()).hasSize(4).last().isEqualTo("NEXT " + fixture.afterHead(m));
        assertThat(second.stdout().subList(0, 3))
                .allSatisfy(line -> assertThat(line).startsWith("OBS ").contains(" redelivered=true "));
        assertThat(subjects(second.stdout())).containsExactly("s-1", "s-2", "s-3");
    }

    /**
     * redelivered=false must mean "never handed out before": the rows of a later batch, which the watch read with a
     * replay from its last NEXT, count as handed out too, and a row that came after the watch stopped does not.
     */
    @Test
    void aRestartedWatchFlagsEveryRowItPrintedBeforeAsRedeliveredAndOnlyThose() {
        Fixture.Monitor m = fixture.monitor("batches");
        long s1 = fixture.publish(m, "s-1");
        fixture.publish(m, "s-2");
        long s3 = fixture.publish(m, "s-3");
        fixture.publish(m, "s-4");
        Fixture.Reader reader = fixture.subscribe(m, "agent:interrupted");
        // --wait 0: the first watch never parks a pull, so none of its pulls is still waiting at the server when s-5 is
        // published (a parked pull whose client died would hand s-5 out, and then redelivered=true would be right).
        try (CliProcess watch = CliProcess.start(
                fixture.base(),
                "watch",
                "--subscription",
                reader.subscription(),
                "--token",
                reader.token(),
                "--limit",
                "2",
                "--wait",
                "0")) {
            assertThat(watch.nextLine(LINE)).startsWith("OBS seq=" + s1 + " ").contains(" redelivered=false ");
            watch.nextLine(LINE);
            assertThat(watch.nextLine(LINE)).isEqualTo("NEXT " + s3);
            assertThat(watch.nextLine(LINE)).startsWith("OBS seq=" + s3 + " ").contains(" redelivered=false ");
            watch.nextLine(LINE);
            assertThat(watch.nextLine(LINE)).startsWith("NEXT ");
        }
        fixture.publish(m, "s-5");

        CliProcess.Finished restarted = run(
                Map.of("MP_BASE", fixture.base().toString(), "MP_TOKEN", reader.token()),
                "watch",
                "--subscription",
                reader.subscription(),
                "--once",
                "--limit",
                "10");

        assertThat(restarted.exit()).as(restarted.stderr()).isZero();
        assertThat(subjects(restarted.stdout())).containsExactly("s-1", "s-2", "s-3", "s-4", "s-5");
        assertThat(restarted.stdout().subList(0, 4))
                .as("printed by the first watch, in two batches")
                .allSatisfy(line -> assertThat(line).contains(" redelivered=true "));
        assertThat(restarted.stdout().get(4))
                .as("published after the first watch stopped")
                .contains(" redelivered=false ");
    }

    @Test
    void aRestartedWatchResumesExactlyAtTheServersCursorAndAnAckedBatchIsGone() {
        Fixture.Monitor m = fixture.monitor("acked");
        fixture.publish(m, "s-1");
        long s2 = fixture.publish(m, "s-2");
        long s3 = fixture.publish(m, "s-3");
        Fixture.Reader reader = fixture.subscribe(m, "agent:acker");
        watchOnce(reader);
        // MP_BASE and MP_TOKEN instead of options: the environment a Monitor tool's command runs in.
        Map<String, String> env = Map.of("MP_BASE", fixture.base().toString(), "MP_TOKEN", reader.token());

        CliProcess.Finished partAck =
                run(env, "ack", "--subscription", reader.subscription(), "--cursor", String.valueOf(s2));
        CliProcess.Finished resumed = watchOnce(reader);
        CliProcess.Finished fullAck =
                run(env, "ack", "--subscription", reader.subscription(), "--cursor", String.valueOf(s3 + 1));
        CliProcess.Finished afterAck =
                run(env, "watch", "--subscription", reader.subscription(), "--once", "--wait", "1");

        assertThat(partAck.exit()).as(partAck.stderr()).isZero();
        assertThat(partAck.out()).contains("\"cursor\":" + s2);
        assertThat(subjects(resumed.stdout())).containsExactly("s-2", "s-3");
        assertThat(fullAck.exit()).isZero();
        assertThat(afterAck.exit()).isZero();
        assertThat(afterAck.stdout()).containsExactly("HEAD " + (s3 + 1) + " LAG 0");
    }

    @Test
    void ackOnPrintAcksEachBatchOnceItIsPrinted() {
        Fixture.Monitor m = fixture.monitor("autoack");
        fixture.publish(m, "s-1");
        fixture.publish(m, "s-2");
        fixture.publish(m, "s-3");
        Fixture.Reader reader = fixture.subscribe(m, "agent:eager");
        long next = fixture.afterHead(m);

        CliProcess.Finished watched = CliProcess.run(
                fixture.base(),
                "watch",
                "--subscription",
                reader.subscription(),
                "--token",
                reader.token(),
                "--once",
                "--ack-on-print");

        assertThat(watched.exit()).isZero();
        assertThat(subjects(watched.stdout())).containsExactly("s-1", "s-2", "s-3");
        assertThat(watched.stdout()).last().isEqualTo("NEXT " + next + " acked");
        Http.Response pulled = fixture.pull(reader);
        assertThat(pulled.json().get("cursor").asLong()).isEqualTo(next);
        assertThat(pulled.json().get("observations")).isEmpty();
    }

    @Test
    void aWatchWhoseReaderHasGoneStopsAndAcksNothingEvenWithAckOnPrint() {
        Fixture.Monitor m = fixture.monitor("gone");
        fixture.publish(m, "unseen");
        Fixture.Reader reader = fixture.subscribe(m, "agent:vanished");
        // `| true` closes the pipe at once: the watch's first line meets a reader that is gone.
        String watch = String.join(" ", CliProcess.javaCommand()) + " watch --subscription " + reader.subscription()
                + " --token " + reader.token() + " --ack-on-print";

        CliProcess.Finished shell;
        try (CliProcess p = CliProcess.startCommand(
                List.of("bash", "-c", watch + " | true; exit ${PIPESTATUS[0]}"),
                Map.of("MP_BASE", fixture.base().toString()))) {
            shell = p.finish();
        }

        assertThat(shell.exit()).as(shell.stderr()).isZero();
        Http.Response pulled = fixture.pull(reader);
        assertThat(pulled.json().get("cursor").asLong())
                .as("the server's cursor")
                .isZero();
        assertThat(subjectsOf(pulled)).contains("unseen");
    }

    @Test
    void aLiveWatchPrintsWhatIsPublishedWhileItWaits() {
        Fixture.Monitor m = fixture.monitor("live");
        Fixture.Reader reader = fixture.subscribe(m, "agent:live");
        try (CliProcess watch = CliProcess.start(
                fixture.base(),
                "watch",
                "--subscription",
                reader.subscription(),
                "--token",
                reader.token(),
                "--wait",
                "5")) {
            String idle = watch.nextLine(LINE);

            long seq = fixture.publish(m, "fresh");

            assertThat(idle).startsWith("HEAD ").endsWith(" LAG 0");
            // Idle pulls repeat every 5 s, but an unchanged HEAD line is not printed again: the next line is the news.
            assertThat(watch.nextLine(LINE)).startsWith("OBS seq=" + seq + " ").contains(" subject=fresh ");
            assertThat(watch.nextLine(LINE)).isEqualTo("NEXT " + (seq + 1));
        }
    }

    @Test
    void catchUpLabelsTheBacklogAndNotWhatComesAfter() {
        Fixture.Monitor m = fixture.monitor("backlog");
        fixture.publish(m, "old-1");
        fixture.publish(m, "old-2");
        Fixture.Reader reader = fixture.subscribe(m, "agent:late");
        try (CliProcess watch = CliProcess.start(
                fixture.base(),
                "watch",
                "--subscription",
                reader.subscription(),
                "--token",
                reader.token(),
                "--catch-up")) {
            List<String> backlog = List.of(watch.nextLine(LINE), watch.nextLine(LINE), watch.nextLine(LINE));

            long seq = fixture.publish(m, "new");

            assertThat(backlog.get(0)).startsWith("CATCHUP ").contains(" subject=old-1 ");
            assertThat(backlog.get(1)).startsWith("CATCHUP ").contains(" subject=old-2 ");
            assertThat(backlog.get(2)).startsWith("NEXT ");
            String fresh = watch.awaitLine("the new observation", line -> line.contains(" subject=new "), LINE);
            assertThat(fresh).startsWith("OBS seq=" + seq + " ");
        }
    }

    @Test
    void aRetiredSubscriptionPrintsRetiredAndExitsZero() {
        Fixture.Monitor m = fixture.monitor("retired");
        Fixture.Reader reader = fixture.subscribe(m, "agent:gone");
        fixture.retire(reader);

        try (CliProcess watch = CliProcess.start(
                fixture.base(), "watch", "--subscription", reader.subscription(), "--token", reader.token())) {
            assertThat(watch.nextLine(LINE)).isEqualTo("RETIRED");
            assertThat(watch.awaitExit(EXIT)).isZero();
        }
    }

    @Test
    void aBadTokenIsAnErrorLineAndExitStatusOne() {
        Fixture.Monitor m = fixture.monitor("badtoken");
        Fixture.Reader reader = fixture.subscribe(m, "agent:honest");

        CliProcess.Finished watched = CliProcess.run(
                fixture.base(), "watch", "--subscription", reader.subscription(), "--token", "not-the-token");

        assertThat(watched.exit()).isEqualTo(1);
        assertThat(watched.stdout())
                .singleElement()
                .asString()
                .startsWith("ERROR 401 ")
                .contains("UNAUTHORIZED");
    }

    @Test
    void aCursorBelowTheRetentionFloorPrintsExpiredAndStateThenReadsOnFromTheFloor() {
        Fixture.Monitor m = fixture.monitor("expired");
        fixture.publish(m, "s-1");
        long s2 = fixture.publish(m, "s-2");
        long s3 = fixture.publish(m, "s-3");
        Fixture.Reader reader = fixture.subscribe(m, "agent:slow");
        fixture.compact(m, s2);

        CliProcess.Finished watched = watchOnce(reader);

        assertThat(watched.exit()).isZero();
        assertThat(watched.stdout()).hasSize(4);
        assertThat(watched.stdout().get(0)).isEqualTo("EXPIRED retention_floor=" + s3 + " requested=0");
        assertThat(watched.stdout().get(1))
                .startsWith("STATE monitor=" + m.id() + " live=true reason=- head=")
                .contains(" retention_floor=" + s3 + " gaps=");
        assertThat(watched.stdout().get(2)).startsWith("OBS seq=" + s3 + " ");
        assertThat(watched.stdout().get(3)).startsWith("NEXT ");
    }

    @Test
    void noServerMeansDownAndExitStatusThreeWithOnce() {
        URI nowhere = URI.create("http://127.0.0.1:" + FreePorts.next());

        CliProcess.Finished watched =
                CliProcess.run(nowhere, "watch", "--subscription", "sub-x", "--token", "t", "--once");

        assertThat(watched.exit()).isEqualTo(3);
        assertThat(watched.stdout())
                .singleElement()
                .asString()
                .startsWith("DOWN ")
                .contains("connection refused")
                .endsWith("not retrying (--once)");
    }

    private CliProcess.Finished watchOnce(Fixture.Reader reader) {
        return CliProcess.run(
                fixture.base(), "watch", "--subscription", reader.subscription(), "--token", reader.token(), "--once");
    }

    private static CliProcess.Finished run(Map<String, String> env, String... args) {
        try (CliProcess p = CliProcess.start(env, args)) {
            return p.finish();
        }
    }

    private static List<String> subjectsOf(Http.Response pulled) {
        List<String> subjects = new java.util.ArrayList<>();
        pulled.json()
                .get("observations")
                .forEach(o -> subjects.add(o.path("subject").asText()));
        return subjects;
    }

    static List<String> subjects(List<String> lines) {
        return lines.stream()
                .filter(l -> l.startsWith("OBS ") || l.startsWith("CATCHUP "))
                .map(l -> l.replaceAll(".* subject=(\\S+) .*", "$1"))
                .toList();
    }
}
