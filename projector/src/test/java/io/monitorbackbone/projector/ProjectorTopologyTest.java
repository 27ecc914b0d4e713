package io.monitorbackbone.projector;

import static io.monitorbackbone.projector.MonitorLogs.T0;
import static io.monitorbackbone.projector.MonitorLogs.publish;
import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.Aggregate;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.MonitorDefinitions;
import io.monitorbackbone.protocol.ProtocolRows;
import io.monitorbackbone.protocol.States;
import io.monitorbackbone.protocol.Vocabulary;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProjectorTopologyTest {
    /** {@code mp.state} and the changelog hold the aggregate's JSON. */
    private static final org.apache.kafka.common.serialization.Deserializer<Aggregate> AGGREGATES =
            (topic, bytes) -> bytes == null ? null : Aggregate.fromJson(bytes);

    private static final String CHANGELOG =
            ProjectorConfig.APPLICATION_ID + "-" + ProjectorTopology.STORE + "-changelog";
    private static final String REPARTITION =
            ProjectorConfig.APPLICATION_ID + "-" + ProjectorTopology.BY_MONITOR + "-repartition";

    // Under target/, not the OS temp directory Kafka Streams warns about; each driver's close() empties it.
    private final Path stateDir =
            Path.of("target", "streams-state", java.util.UUID.randomUUID().toString());

    private final List<TopologyTestDriver> drivers = new ArrayList<>();
    private final Monitor alpha = MonitorLogs.monitor("alpha", "{\"owner\":\"agent:owner\"}");
    private final Monitor beta = MonitorLogs.monitor("beta.2", "{\"owner\":\"agent:owner\"}");

    @AfterEach
    void closeDrivers() {
        drivers.forEach(TopologyTestDriver::close);
    }

    private TopologyTestDriver driver() {
        return driver(ProjectorTopology.build(4));
    }

    private TopologyTestDriver driver(Topology topology) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, ProjectorConfig.APPLICATION_ID);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        TopologyTestDriver d = new TopologyTestDriver(topology, p, T0);
        drivers.add(d);
        return d;
    }

    private static void pipe(TopologyTestDriver d, String monitorId, List<TestRecord<String, byte[]>> records) {
        d.createInputTopic(Topics.obs(monitorId), new StringSerializer(), new ByteArraySerializer())
                .pipeRecordList(records);
    }

    private static void pipe(TopologyTestDriver d, String monitorId, TestRecord<String, byte[]> record) {
        pipe(d, monitorId, List.of(record));
    }

    private static List<TestRecord<String, Aggregate>> states(TopologyTestDriver d) {
        return d.createOutputTopic(ProjectorTopology.STATE_TOPIC, new StringDeserializer(), AGGREGATES)
                .readRecordsToList();
    }

    private static Map<String, Aggregate> latest(List<TestRecord<String, Aggregate>> records) {
        return records.stream().collect(Collectors.toMap(TestRecord::key, TestRecord::value, (a, b) -> b));
    }

    private List<TestRecord<String, byte[]>> alphaLog() {
        List<TestRecord<String, byte[]>> log = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Instant at = T0.plusSeconds(i);
            String actor = i % 3 == 0 ? "probe:a" : "probe:b";
            log.add(publish(
                    alpha,
                    "{\"type\":\"demo.v\",\"subject\":\"s" + (i % 4) + "\",\"actor\":\"" + actor
                            + "\",\"data\":{\"v\":1}}",
                    at));
            if (i == 5) {
                log.add(publish(alpha, "{\"type\":\"demo.claim.contradiction\",\"subject\":\"s1\"}", at));
            }
            if (i == 8) {
                log.add(publish(
                        alpha,
                        "{\"type\":\"demo.v\",\"tier\":\"falsified\",\"supersedes\":{\"source\":\"monitor:alpha\",\"id\":\"2\"}}",
                        at));
                log.add(MonitorLogs.record(
                        "alpha",
                        ProtocolRows.row(
                                alpha,
                                Vocabulary.LEASE,
                                "agent:w",
                                "s1",
                                MonitorLogs.body("{\"action\":\"complete\"}"),
                                false,
                                at),
                        at));
            }
        }
        return log;
    }

    @Test
    void eachMonitorIsFoldedUnderItsOwnId() {
        TopologyTestDriver d = driver();

        pipe(d, "alpha", publish(alpha, "{\"type\":\"demo.note\"}", T0));
        pipe(d, "beta.2", publish(beta, "{\"type\":\"demo.note\",\"actor\":\"probe:x\"}", T0));
        pipe(
                d,
                "alpha",
                publish(alpha, "{\"type\":\"demo.claim.contradiction\",\"subject\":\"k\"}", T0.plusSeconds(1)));
        pipe(
                d,
                "beta.2",
                MonitorLogs.record(
                        "beta.2",
                        ProtocolRows.rejected(
                                beta,
                                io.monitorbackbone.protocol.ProtocolException.of(
                                        io.monitorbackbone.protocol.ErrorCode.INVALID, "no"),
                                MonitorLogs.body("{}"),
                                "agent:x",
                                null,
                                T0),
                        T0.plusSeconds(2)));

        Map<String, Aggregate> states = latest(states(d));
        assertThat(states).containsOnlyKeys("alpha", "beta.2");
        assertThat(states.get("alpha").observations()).isEqualTo(2);
        assertThat(states.get("alpha").contradictionsOpen()).isEqualTo(1);
        assertThat(states.get("beta.2").observations()).isEqualTo(2);
        assertThat(states.get("beta.2").rejected()).isEqualTo(1);
        assertThat(states.get("beta.2").lastSourceContact())
                .as("a rejection is no contact")
                .isEqualTo("2026-11-29T18:00:00.000Z");
    }

    @Test
    void everyNewAggregateIsPublishedToTheStateTopic() {
        TopologyTestDriver d = driver();

        pipe(d, "alpha", alphaLog());

        List<TestRecord<String, Aggregate>> out = states(d);
        assertThat(out).hasSize(alphaLog().size());
        assertThat(out)
                .extracting(r -> r.value().lastSeq())
                .isSorted()
                .startsWith(1L)
                .endsWith((long) alphaLog().size());
        Aggregate last = out.get(out.size() - 1).value();
        assertThat(last.acted()).isEqualTo(1);
        assertThat(last.trackRecord().falsified()).isEqualTo(1);
        assertThat(last.contradictionsOpen()).isEqualTo(1);
    }

    @Test
    void afterEveryCommitTheChangelogAndTheStateTopicHoldTheFoldOfEachLogToTheByte() {
        // One aggregate held per task and three monitors interleaved: every record but the first of a run reads its
        // monitor's aggregate back from the store, and every commit (the test driver commits after each record) writes
        // the changed one out.
        TopologyTestDriver d = driver(ProjectorTopology.build(1, 1));
        Monitor gamma = MonitorLogs.monitor("gamma", "{\"owner\":\"agent:owner\"}");
        List<Monitor> monitors = List.of(alpha, beta, gamma);
        Map<String, Aggregate> folds = new java.util.HashMap<>();
        var changelog = d.createOutputTopic(CHANGELOG, new StringDeserializer(), new ByteArrayDeserializer());
        var state = d.createOutputTopic(
                ProjectorTopology.STATE_TOPIC, new StringDeserializer(), new ByteArrayDeserializer());
        for (int i = 0; i < 30; i++) {
            Monitor m = monitors.get(i % 3 == 2 && i % 5 == 0 ? 0 : i % 3);
            String body = i % 7 == 3
                    ? "{\"type\":\"demo.claim.contradiction\",\"subject\":\"s" + (i % 2) + "\"}"
                    : "{\"type\":\"demo.v\",\"subject\":\"s" + (i % 4) + "\",\"actor\":\"probe:" + (i % 3) + "\"}";
            TestRecord<String, byte[]> r = publish(m, body, T0.plusSeconds(i));
            pipe(d, m.id(), r);
            // The test driver numbers the offsets of a pattern source's topics together: this record's seq is i + 1.
            long seq = i + 1;
            Aggregate fold = folds.getOrDefault(m.id(), Aggregate.EMPTY)
                    .apply(
                            m.id(),
                            seq,
                            io.monitorbackbone.binding.ObservationCodec.decode(
                                    m.id(), r.headers(), r.value(), r.timestamp()),
                            r.timestamp());
            folds.put(m.id(), fold);

            List<TestRecord<String, byte[]>> logged = changelog.readRecordsToList();
            List<TestRecord<String, byte[]>> published = state.readRecordsToList();
            assertThat(logged).as("changelog records of commit %d", i).hasSize(1);
            assertThat(published).as("mp.state records of commit %d", i).hasSize(1);
            assertThat(logged.get(0).key()).isEqualTo(m.id());
            assertThat(published.get(0).key()).isEqualTo(m.id());
            assertThat(new String(logged.get(0).value(), StandardCharsets.UTF_8))
                    .as("the changelog after record %d", i)
                    .isEqualTo(new String(fold.toJson(), StandardCharsets.UTF_8));
            assertThat(published.get(0).value()).isEqualTo(logged.get(0).value());
            assertThat(published.get(0).timestamp()).isEqualTo(r.timestamp());
        }
        assertThat(folds.get("alpha").contradictionsOpen()).isPositive();
    }

    @Test
    void theSeqIsTheOffsetPlusOneWhateverHeaderAProducerSent() {
        TopologyTestDriver d = driver();
        TestRecord<String, byte[]> forged = publish(alpha, "{\"type\":\"demo.note\"}", T0);
        forged.headers()
                .add(
                        ProjectorTopology.SEQ_HEADER,
                        ByteBuffer.allocate(8).putLong(999).array());

        pipe(d, "alpha", List.of(publish(alpha, "{\"type\":\"demo.note\"}", T0), forged));

        assertThat(latest(states(d)).get("alpha").lastSeq()).isEqualTo(2);
    }

    @Test
    void theRepartitionCarriesEachLogRecordFramedInItsValueAndNoHeader() {
        TopologyTestDriver d = driver();
        TestRecord<String, byte[]> first = publish(alpha, "{\"type\":\"demo.note\",\"subject\":\"a\"}", T0);
        TestRecord<String, byte[]> second = publish(alpha, "{\"type\":\"demo.note\"}", T0.plusSeconds(1));
        second.headers()
                .add("x-null", null)
                .add(
                        ProjectorTopology.SEQ_HEADER,
                        ByteBuffer.allocate(8).putLong(9).array());

        pipe(d, "alpha", List.of(first, second));

        List<TestRecord<String, byte[]>> repartitioned = d.createOutputTopic(
                        REPARTITION, new StringDeserializer(), new ByteArrayDeserializer())
                .readRecordsToList();
        assertThat(repartitioned).hasSize(2);
        for (int i = 0; i < 2; i++) {
            TestRecord<String, byte[]> source = i == 0 ? first : second;
            TestRecord<String, byte[]> r = repartitioned.get(i);
            assertThat(r.key()).isEqualTo("alpha");
            assertThat(r.headers().toArray())
                    .as("headers of repartitioned record %d", i)
                    .isEmpty();
            assertThat(r.timestamp()).isEqualTo(source.timestamp());
            ByMonitorRecord.Unpacked unpacked = ByMonitorRecord.unpack(r.value());
            assertThat(unpacked).isNotNull();
            assertThat(unpacked.seq()).isEqualTo(i + 1);
            assertThat(unpacked.value()).isEqualTo(source.value());
            source.headers().remove(ProjectorTopology.SEQ_HEADER);
            assertThat(unpacked.headers().toArray())
                    .as("the log record's headers but a producer's own mp_seq")
                    .containsExactly(source.headers().toArray());
        }
    }

    @Test
    void aRepartitionedRecordAnEarlierVersionWroteIsFoldedAsBefore() {
        // Left in the repartition topic by the version that carried the seq in a header, when this one starts.
        TopologyTestDriver d = driver();
        TestRecord<String, byte[]> logged = publish(alpha, "{\"type\":\"demo.note\",\"subject\":\"old\"}", T0);
        RecordHeaders headers = new RecordHeaders(logged.headers().toArray());
        headers.add(
                ProjectorTopology.SEQ_HEADER, ByteBuffer.allocate(8).putLong(1).array());
        d.createInputTopic(REPARTITION, new StringSerializer(), new ByteArraySerializer())
                .pipeInput(new TestRecord<>("alpha", logged.value(), headers, T0));
        // Then the same record again from the log (a redelivery: the old version's offsets were not committed) and
        // the next one, both framed by this version.
        pipe(d, "alpha", List.of(logged, publish(alpha, "{\"type\":\"demo.note\"}", T0.plusSeconds(1))));

        Aggregate state = latest(states(d)).get("alpha");
        assertThat(state.firstSeq()).isEqualTo(1);
        assertThat(state.observations()).as("seq 1 once, seq 2").isEqualTo(2);
        assertThat(state.lastSeq()).isEqualTo(2);
        assertThat(state.types()).containsExactly("demo.note");
    }

    @Test
    void stateRecordsCarryNoHeader() {
        TopologyTestDriver d = driver();

        pipe(d, "alpha", alphaLog());

        List<TestRecord<String, byte[]>> published = d.createOutputTopic(
                        ProjectorTopology.STATE_TOPIC, new StringDeserializer(), new ByteArrayDeserializer())
                .readRecordsToList();
        assertThat(published).hasSize(alphaLog().size());
        assertThat(published).allSatisfy(r -> assertThat(r.headers().toArray()).isEmpty());
    }

    @Test
    void tombstonesAreIgnoredAndRecordsThatAreNotCloudEventsAreCountedAsUndecodable() {
        TopologyTestDriver d = driver();
        pipe(d, "alpha", publish(alpha, "{\"type\":\"demo.note\"}", T0));
        List<TestRecord<String, Aggregate>> before = states(d);

        int depth = io.monitorbackbone.protocol.Json.MAX_READ_NESTING + 1;
        pipe(
                d,
                "alpha",
                List.of(
                        new TestRecord<>("k", null, new RecordHeaders(), T0),
                        new TestRecord<>(
                                "k", "not a cloud event".getBytes(StandardCharsets.UTF_8), new RecordHeaders(), T0)));
        List<TestRecord<String, Aggregate>> folded = states(d);
        // A CloudEvent whose data nests deeper than any reader accepts: the poison row of issue 12.
        TestRecord<String, byte[]> deep = publish(alpha, "{\"type\":\"demo.note\"}", T0);
        pipe(
                d,
                "alpha",
                new TestRecord<>(
                        deep.key(),
                        ("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.UTF_8),
                        deep.headers(),
                        T0));
        pipe(d, "alpha", publish(alpha, "{\"type\":\"demo.note\"}", T0));

        assertThat(before).hasSize(1);
        assertThat(folded).hasSize(1);
        assertThat(folded.get(0).value().lastType()).isEqualTo(io.monitorbackbone.protocol.Vocabulary.UNDECODABLE);
        Aggregate after = latest(states(d)).get("alpha");
        assertThat(after.observations()).isEqualTo(4);
        assertThat(after.undecodable()).isEqualTo(2);
        assertThat(after.lastSeq()).isEqualTo(5);
    }

    @Test
    void theFoldRunsInItsOwnSubTopologyAfterARepartitionByMonitor() {
        Topology topology = ProjectorTopology.build(4);

        List<TopologyDescription.Subtopology> subs =
                new ArrayList<>(topology.describe().subtopologies());

        assertThat(subs).hasSize(2);
        String description = topology.describe().toString();
        assertThat(description)
                .contains("topics: [" + ProjectorTopology.BY_MONITOR + "-repartition]")
                .contains("stores: [" + ProjectorTopology.STORE + "]")
                .contains("topic: " + ProjectorTopology.STATE_TOPIC);
        TopologyDescription.Subtopology first =
                subs.stream().filter(s -> s.id() == 0).findFirst().orElseThrow();
        assertThat(first.nodes())
                .noneMatch(n -> n instanceof TopologyDescription.Processor p
                        && !p.stores().isEmpty());
    }

    @Test
    void theRepartitionAndTheChangelogAreTheOnlyInternalTopics() {
        TopologyTestDriver d = driver();

        pipe(d, "alpha", publish(alpha, "{\"type\":\"demo.note\"}", T0));

        assertThat(d.producedTopicNames())
                .containsExactlyInAnyOrder(REPARTITION, CHANGELOG, ProjectorTopology.STATE_TOPIC);
    }

    @Test
    void aRestartedProjectorResumesFromItsChangelogWithIdenticalResults() {
        List<TestRecord<String, byte[]>> log = alphaLog();
        TopologyTestDriver uninterrupted = driver();
        pipe(uninterrupted, "alpha", log);
        Aggregate expected = latest(states(uninterrupted)).get("alpha");
        uninterrupted.close();
        drivers.remove(uninterrupted);

        TopologyTestDriver first = driver();
        pipe(first, "alpha", log.subList(0, 7));
        List<TestRecord<String, Aggregate>> changelog = first.createOutputTopic(
                        CHANGELOG, new StringDeserializer(), AGGREGATES)
                .readRecordsToList();
        first.close();
        drivers.remove(first);
        // The test driver neither keeps its state directory nor restores changelogs: load the store as Kafka Streams
        // would from the changelog, then redeliver the whole log, as a consumer whose offsets were never committed.
        TopologyTestDriver restarted = driver();
        KeyValueStore<String, ValueAndTimestamp<byte[]>> store =
                FoldStore.of(restarted.getStateStore(ProjectorTopology.STORE)).aggregates();
        changelog.forEach(
                r -> store.put(r.key(), ValueAndTimestamp.make(r.value().toJson(), r.timestamp())));
        pipe(restarted, "alpha", log);

        Aggregate resumed = latest(states(restarted)).get("alpha");
        assertThat(latest(changelog).get("alpha").lastSeq()).isEqualTo(7);
        assertThat(resumed).isEqualTo(expected);
        assertThat(resumed.toJson()).isEqualTo(expected.toJson());
    }

    @Test
    void thePublishedAggregateRendersWithTheMonitorsLiveStateAtReadTime() {
        TopologyTestDriver d = driver();
        Monitor paused = MonitorDefinitions.transition(alpha, "pause");
        pipe(
                d,
                "alpha",
                List.of(
                        publish(alpha, "{\"type\":\"demo.note\"}", T0),
                        MonitorLogs.record(
                                "alpha",
                                ProtocolRows.configured(
                                        paused,
                                        paused.served(1, MonitorLogs.body("{}")),
                                        "pause",
                                        "d",
                                        null,
                                        null,
                                        null,
                                        false,
                                        T0.plusSeconds(5)),
                                T0.plusSeconds(5))));
        Aggregate aggregate = latest(states(d)).get("alpha");

        var state = States.render(paused, aggregate, new States.Context(2, 1, 0, 0, null, T0.plusSeconds(7)));

        assertThat(state.at("/live/reason").asText()).isEqualTo("paused");
        assertThat(state.at("/last/type").asText()).isEqualTo(Vocabulary.CONFIGURED);
        assertThat(state.at("/ages/since_last_source_contact_s").asLong()).isEqualTo(7);
        assertThat(state.at("/ages/since_last_observation_s").asLong()).isEqualTo(2);
    }

    @Test
    void everyCounterContradictionsBySubjectAndFalsifiedClaimsFoldAsScripted() {
        TopologyTestDriver d = driver();
        Monitor retired = MonitorDefinitions.transition(alpha, "retire");
        pipe(
                d,
                "alpha",
                List.of(
                        publish(alpha, "{\"type\":\"demo.v\",\"subject\":\"s1\",\"actor\":\"probe:a\"}", T0),
                        publish(
                                alpha,
                                "{\"type\":\"demo.v\",\"subject\":\"s2\",\"actor\":\"probe:b\"}",
                                T0.plusSeconds(1)),
                        // seq 3 and 4: contradictions on two subjects; seq 5 resolves s1 only, seq 6 resolves a subject
                        // never opened
                        publish(alpha, "{\"type\":\"demo.claim.contradiction\",\"subject\":\"s1\"}", T0.plusSeconds(2)),
                        publish(alpha, "{\"type\":\"demo.claim.contradiction\",\"subject\":\"s2\"}", T0.plusSeconds(3)),
                        publish(
                                alpha,
                                "{\"type\":\"demo.claim.contradiction_resolved\",\"subject\":\"s1\"}",
                                T0.plusSeconds(4)),
                        publish(
                                alpha,
                                "{\"type\":\"demo.claim.contradiction_resolved\",\"subject\":\"s9\"}",
                                T0.plusSeconds(5)),
                        // seq 7: probe:a's claim at seq 1 is superseded by a falsified correction
                        publish(
                                alpha,
                                "{\"type\":\"demo.v\",\"tier\":\"falsified\",\"supersedes\":{\"source\":\"monitor:alpha\",\"id\":\"1\"}}",
                                T0.plusSeconds(6)),
                        MonitorLogs.record(
                                "alpha",
                                ProtocolRows.rejected(
                                        alpha,
                                        io.monitorbackbone.protocol.ProtocolException.of(
                                                io.monitorbackbone.protocol.ErrorCode.UNKNOWN_VOCABULARY, "bad tier"),
                                        MonitorLogs.body("{}"),
                                        "probe:c",
                                        null,
                                        T0.plusSeconds(7)),
                                T0.plusSeconds(7)),
                        MonitorLogs.record(
                                "alpha",
                                ProtocolRows.row(
                                        alpha,
                                        Vocabulary.LEASE,
                                        "agent:w",
                                        "s2",
                                        MonitorLogs.body("{\"action\":\"claim\"}"),
                                        false,
                                        T0.plusSeconds(8)),
                                T0.plusSeconds(8)),
                        MonitorLogs.record(
                                "alpha",
                                ProtocolRows.row(
                                        alpha,
                                        Vocabulary.LEASE,
                                        "agent:w",
                                        "s2",
                                        MonitorLogs.body("{\"action\":\"complete\"}"),
                                        false,
                                        T0.plusSeconds(9)),
                                T0.plusSeconds(9)),
                        MonitorLogs.record(
                                "alpha",
                                ProtocolRows.configured(
                                        retired,
                                        retired.served(10, MonitorLogs.body("{}")),
                                        "retire",
                                        "d",
                                        null,
                                        null,
                                        null,
                                        false,
                                        T0.plusSeconds(10)),
                                T0.plusSeconds(10))));

        Aggregate a = latest(states(d)).get("alpha");

        assertThat(a.observations()).isEqualTo(11);
        assertThat(a.rejected()).isEqualTo(1);
        assertThat(a.acted()).as("only the completed lease").isEqualTo(1);
        assertThat(a.firstSeq()).isEqualTo(1);
        assertThat(a.lastSeq()).isEqualTo(11);
        assertThat(a.lastType()).isEqualTo(Vocabulary.CONFIGURED);
        assertThat(a.lastSourceTime())
                .as("protocol rows are no source contact")
                .isEqualTo(io.monitorbackbone.protocol.Times.format(T0.plusSeconds(6)));
        assertThat(a.contradictions().open()).as("matched by subject").containsExactly("s2");
        assertThat(a.contradictionsOpen()).isEqualTo(1);
        assertThat(a.trackRecord().claims()).isGreaterThanOrEqualTo(2);
        assertThat(a.trackRecord().falsified()).isEqualTo(1);
        assertThat(a.trackRecord().value()).isLessThan(1.0);

        var state = States.render(retired, a, new States.Context(11, 1, 0, 0, null, T0.plusSeconds(12)));
        assertThat(state.at("/live/value").asBoolean()).isFalse();
        assertThat(state.at("/live/reason").asText()).isEqualTo("retired");
        assertThat(state.at("/counters/observations").asLong()).isEqualTo(11);
        assertThat(state.at("/counters/rejected").asLong()).isEqualTo(1);
        assertThat(state.at("/counters/acted").asLong()).isEqualTo(1);
        assertThat(state.get("contradictions_open").asLong()).isEqualTo(1);
        assertThat(state.at("/confidence/inputs/present").toString()).contains("track_record");
    }
}
