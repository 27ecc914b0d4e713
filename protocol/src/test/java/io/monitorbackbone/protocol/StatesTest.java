package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatesTest {
    // test-support has the shared checker, but it depends on this module; the state schema is all these tests need.
    private static final JsonSchema STATE = JsonSchemaFactory.getInstance(
                    SpecVersion.VersionFlag.V202012,
                    b -> b.schemaMappers(m ->
                            m.mapPrefix("https://mentu.ai/schemas/monitor-protocol/0.1/", "classpath:mp/schemas/")))
            .getSchema(
                    SchemaLocation.of("https://mentu.ai/schemas/monitor-protocol/0.1/state.json"),
                    SchemaValidatorsConfig.builder()
                            .formatAssertionsEnabled(true)
                            .build());

    private static final String DECLARE =
            "{\"source\":{\"kind\":\"log\",\"ref\":\"x\",\"settings\":{\"independent_actors\":[\"probe:a\",\"probe:b\"]}}}";

    private static ObjectNode valid(ObjectNode state) {
        assertThat(STATE.validate(state)).as(state.toPrettyString()).isEmpty();
        return state;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new java.util.ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void anEmptyLogRendersWithEveryUnknowableAgeNull() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\"}", false);

        ObjectNode s = valid(log.state(new States.Context(0, 1, 0, 0, null, LogFixture.T0)));

        assertThat(s.get("last").isNull()).isTrue();
        assertThat(s.at("/ages/since_last_observation_s").isNull()).isTrue();
        assertThat(s.at("/ages/since_last_pull_s").isNull()).isTrue();
        assertThat(s.at("/ages/since_last_source_contact_s").isNull()).isTrue();
        assertThat(s.get("covers_until").isNull()).isTrue();
        assertThat(s.get("as_of_seq").asLong()).isZero();
        assertThat(s.at("/computed_from/seq_from").asLong()).isEqualTo(1);
        assertThat(s.at("/computed_from/seq_to").asLong()).isZero();
        assertThat(s.at("/confidence/value").isNull()).isTrue();
    }

    @Test
    void agesAreWholeSecondsFloored() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\"}", false)
                .publish("{\"type\":\"demo.note\"}")
                .at(LogFixture.T0.plusSeconds(30))
                .row(Vocabulary.SUBSCRIBED, "agent:r", null, "{}");
        Instant now = LogFixture.T0.plusMillis(61_999);

        ObjectNode s = valid(log.state(new States.Context(2, 1, 1, 4, LogFixture.T0.plusMillis(59_500), now)));

        assertThat(s.at("/ages/since_last_observation_s").asLong()).isEqualTo(31);
        assertThat(s.at("/ages/since_last_source_contact_s").asLong()).isEqualTo(61);
        assertThat(s.at("/ages/since_last_pull_s").asLong()).isEqualTo(2);
        assertThat(s.at("/ages/since_last_pull_s").isIntegralNumber()).isTrue();
    }

    @Test
    void countersComeFromTheFoldAndDeliveryFromTheContext() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\"}", false)
                .publish("{\"type\":\"demo.note\"}")
                .rejected("{}")
                .row(Vocabulary.LEASE, "agent:w", "j", "{\"action\":\"complete\"}");

        ObjectNode s = valid(log.state(new States.Context(3, 1, 2, 7, null, LogFixture.T0)));

        assertThat(s.get("counters").toString())
                .isEqualTo(
                        "{\"observations\":3,\"delivered\":7,\"acted\":1,\"subscriptions_active\":2,\"rejected\":1,\"undecodable\":0}");
        assertThat(s.get("last").toString())
                .isEqualTo("{\"seq\":3,\"time\":\"2026-11-29T18:00:00.000Z\",\"type\":\"ai.mentu.monitor.lease\"}");
    }

    @Test
    void aLaggingAggregateSaysHowFarBehindTheHeadItIs() {
        LogFixture log =
                LogFixture.of("{\"owner\":\"agent:owner\"}", false).skipSeqs(4).publish("{\"type\":\"demo.note\"}");

        ObjectNode s = valid(log.state(new States.Context(9, 3, 1, 0, null, LogFixture.T0)));

        assertThat(s.get("as_of_seq").asLong()).isEqualTo(5);
        assertThat(s.get("head").asLong()).isEqualTo(9);
        assertThat(s.get("retention_floor").asLong()).isEqualTo(3);
        assertThat(s.get("computed_from").toString()).isEqualTo("{\"seq_from\":5,\"seq_to\":5}");
        assertThat(s.get("ttl_ms").asLong()).isEqualTo(60_000);
        assertThat(s.get("supersedes").isNull()).isTrue();
    }

    @Test
    void liveComesFromTheMonitorAtRenderTime() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\"}", false).publish("{\"type\":\"demo.note\"}");
        ObjectNode running = valid(log.state(log.context(LogFixture.T0)));

        ObjectNode paused = valid(log.transition("pause").state(log.context(LogFixture.T0)));
        ObjectNode retired = valid(log.transition("retire").state(log.context(LogFixture.T0)));

        assertThat(running.get("live")).isEqualTo(LogFixture.body("{\"value\":true,\"reason\":null}"));
        assertThat(paused.get("live")).isEqualTo(LogFixture.body("{\"value\":false,\"reason\":\"paused\"}"));
        assertThat(retired.get("live")).isEqualTo(LogFixture.body("{\"value\":false,\"reason\":\"retired\"}"));
    }

    @Test
    void everyGapAppearsInTheReferenceOrderWhenItsCauseHolds() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\",\"ttl_seconds\":60}", false)
                .unprovenanced("demo.bridged", "agent:only");

        ObjectNode s = valid(log.state(new States.Context(1, 1, 0, 0, null, LogFixture.T0.plusSeconds(61))));

        assertThat(texts(s.at("/confidence/gaps")))
                .containsExactly(
                        "independence_unknown",
                        "no_event_provenance",
                        "single_actor",
                        "stale_source",
                        "no_subscribers",
                        "unattested_origin");
    }

    @Test
    void noGapIsListedWhoseCauseDoesNotHold() {
        LogFixture log = LogFixture.of("{\"owner\":\"human:alice\",\"ttl_seconds\":60}", true)
                .configure(DECLARE)
                .publish("{\"type\":\"demo.v\",\"actor\":\"probe:a\"}")
                .publish("{\"type\":\"demo.v\",\"actor\":\"probe:b\"}");

        ObjectNode s = valid(log.state(log.context(LogFixture.T0.plusSeconds(60))));

        assertThat(texts(s.at("/confidence/gaps"))).isEmpty();
    }

    @Test
    void theSourceIsStaleFromItsLastContactNotFromTheServersOwnRows() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\",\"ttl_seconds\":60}", false)
                .publish("{\"type\":\"demo.v\"}")
                .at(LogFixture.T0.plusSeconds(100))
                .row(Vocabulary.SUBSCRIBED, "agent:r", null, "{}");

        ObjectNode s = valid(log.state(log.context(LogFixture.T0.plusSeconds(100))));

        assertThat(texts(s.at("/confidence/gaps"))).contains("stale_source");
        assertThat(s.at("/ages/since_last_observation_s").asLong()).isZero();
    }

    @Test
    void aSourceThatNeverSpokeIsStaleOnceTheMonitorIsOlderThanItsTtl() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\",\"ttl_seconds\":60}", false);

        List<String> young =
                texts(log.state(log.context(LogFixture.T0.plusSeconds(60))).at("/confidence/gaps"));
        List<String> old =
                texts(log.state(log.context(LogFixture.T0.plusSeconds(61))).at("/confidence/gaps"));

        assertThat(young).doesNotContain("stale_source");
        assertThat(old).contains("stale_source");
    }

    @Test
    void withoutADeclarationTheValueIsNullAndIndependenceListedMissing() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\"}", false)
                .publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"probe:a\"}")
                .publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"probe:b\"}");

        ObjectNode c = valid(log.state(log.context(LogFixture.T0))).with("confidence");

        assertThat(c.get("value").isNull()).isTrue();
        assertThat(texts(c.at("/inputs/present")))
                .containsExactly(
                        "observations", "ages", "actors", "contradictions_open", "corroboration", "track_record");
        assertThat(texts(c.at("/inputs/missing"))).containsExactly("independence");
        assertThat(c.at("/inputs/values").toString()).isEqualTo("{\"corroboration\":1.0,\"track_record\":1.0}");
        assertThat(c.get("computed_by").asText()).isEqualTo("monitor-backbone/confidence-v1");
    }

    @Test
    void withEveryInputPresentTheValueIsComputed() {
        LogFixture log = LogFixture.of("{\"owner\":\"human:alice\"}", true)
                .configure(DECLARE)
                .publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"probe:a\"}")
                .publish("{\"type\":\"demo.v\",\"subject\":\"s\",\"actor\":\"probe:b\"}")
                .publish("{\"type\":\"demo.v\",\"subject\":\"t\",\"actor\":\"probe:a\"}")
                .publish("{\"type\":\"demo.v\",\"subject\":\"t\",\"actor\":\"probe:a\",\"data\":{\"x\":1}}")
                .publish(
                        "{\"type\":\"demo.v\",\"tier\":\"falsified\",\"supersedes\":{\"source\":\"monitor:w-1\",\"id\":\"4\"}}")
                .publish("{\"type\":\"demo.claim.contradiction\",\"subject\":\"t\"}");

        ObjectNode c = valid(log.state(log.context(LogFixture.T0))).with("confidence");

        assertThat(texts(c.at("/inputs/missing"))).isEmpty();
        // Five claims (the contradiction is human:alice's publish), one of them falsified; s corroborated by two
        // declared actors, t by nobody.
        assertThat(c.at("/inputs/values").toString())
                .isEqualTo("{\"corroboration\":0.5,\"track_record\":0.8,\"independence\":0.5}");
        // 0.8 × (0.5 + 0.5) / 2 × 1 / (1 + 1)
        assertThat(c.get("value").asDouble()).isEqualTo(0.2);
    }

    private static final String BRIDGED = "{\"owner\":\"agent:owner\",\"types\":[\"com.example.order\"],"
            + "\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:orders\",\"settings\":{\"format\":\"json\"}}}";

    @Test
    void aMissingKafkaSourceIsAStaleSourceGapWithItsReasonUntilRecordsFlowAgain() {
        LogFixture log = LogFixture.of(BRIDGED, false)
                .row(
                        Vocabulary.BRIDGE_SOURCE,
                        "system:bridge",
                        null,
                        "{\"status\":\"missing\",\"topic\":\"orders\",\"reason\":\"the topic does not exist\"}");
        // No ttl_seconds, no record ever: without the bridge's row nothing would say the source is absent.
        ObjectNode missing = valid(log.state(log.context(LogFixture.T0)));
        assertThat(texts(missing.at("/confidence/gaps"))).contains("stale_source");
        assertThat(missing.at("/confidence/gap_reasons/stale_source").asText())
                .contains("kafka:orders", "the topic does not exist", "seq 1");
        // The status row is no source contact.
        assertThat(missing.at("/ages/since_last_source_contact_s").isNull()).isTrue();

        log.publish("{\"type\":\"com.example.order\",\"source_ref\":\"kafka:orders/0/0\"}");
        ObjectNode flowing = valid(log.state(log.context(LogFixture.T0)));
        assertThat(texts(flowing.at("/confidence/gaps"))).doesNotContain("stale_source");
        assertThat(flowing.at("/confidence/gap_reasons").isEmpty()).isTrue();
    }

    @Test
    void theBridgesSourceRowsCountAsTheServersOwnRowsDoAndNoPublisherCanForgeOne() {
        LogFixture log = LogFixture.of(BRIDGED, false)
                .at(LogFixture.T0)
                .publish("{\"type\":\"com.example.order\",\"source_ref\":\"kafka:orders/0/0\"}");
        ObjectNode before = valid(log.state(log.context(LogFixture.T0)));
        int actorsBefore = log.aggregate().distinctActors();
        log.at(LogFixture.T0.plusSeconds(30))
                .row(Vocabulary.BRIDGE_SOURCE, "system:bridge", null, "{\"status\":\"missing\",\"topic\":\"orders\"}");
        ObjectNode after = valid(log.state(log.context(LogFixture.T0.plusSeconds(40))));
        // As a configured or subscribed row: a row of the log (counters.observations counts rows, protocol rows
        // included, and last is the last row), but no source contact and no actor of the monitor.
        assertThat(after.at("/counters/observations").asLong())
                .isEqualTo(before.at("/counters/observations").asLong() + 1);
        assertThat(after.at("/last/type").asText()).isEqualTo(Vocabulary.BRIDGE_SOURCE);
        assertThat(after.get("covers_until")).isEqualTo(before.get("covers_until"));
        assertThat(after.at("/ages/since_last_source_contact_s").asLong()).isEqualTo(40);
        assertThat(log.aggregate().distinctActors()).isEqualTo(actorsBefore);

        // Only the bridge writes them: a publish of the type is refused (and recorded as a rejected row).
        assertThatThrownBy(() -> log.publish("{\"type\":\"" + Vocabulary.BRIDGE_SOURCE
                        + "\",\"data\":{\"payload\":{\"status\":\"present\",\"topic\":\"orders\"}}}"))
                .isInstanceOfSatisfying(
                        ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROVENANCE_CEILING));
        assertThat(texts(valid(log.state(log.context(LogFixture.T0.plusSeconds(40))))
                        .at("/confidence/gaps")))
                .contains("stale_source");
    }

    @Test
    void aPresentRowEndsTheGapAndAnotherSourceIgnoresIt() {
        LogFixture log = LogFixture.of(BRIDGED, false)
                .row(Vocabulary.BRIDGE_SOURCE, "system:bridge", null, "{\"status\":\"missing\",\"topic\":\"orders\"}");
        assertThat(texts(valid(log.state(log.context(LogFixture.T0))).at("/confidence/gaps")))
                .contains("stale_source");
        // An HTTP publish is no record of the topic: the gap stays.
        log.publish("{\"type\":\"com.example.order\"}");
        assertThat(texts(valid(log.state(log.context(LogFixture.T0))).at("/confidence/gaps")))
                .contains("stale_source");
        log.row(Vocabulary.BRIDGE_SOURCE, "system:bridge", null, "{\"status\":\"present\",\"topic\":\"orders\"}");
        assertThat(texts(valid(log.state(log.context(LogFixture.T0))).at("/confidence/gaps")))
                .doesNotContain("stale_source");

        LogFixture moved = LogFixture.of(BRIDGED, false)
                .row(Vocabulary.BRIDGE_SOURCE, "system:bridge", null, "{\"status\":\"missing\",\"topic\":\"orders\"}")
                .configure("{\"source\":{\"kind\":\"feed\",\"ref\":\"kafka:refunds\","
                        + "\"settings\":{\"format\":\"json\"}}}");
        assertThat(texts(valid(moved.state(moved.context(LogFixture.T0))).at("/confidence/gaps")))
                .doesNotContain("stale_source");
    }

    @Test
    void aSilentSourcePastItsTtlSaysSo() {
        LogFixture log = LogFixture.of("{\"owner\":\"agent:owner\",\"ttl_seconds\":60}", false);
        ObjectNode s = valid(log.state(log.context(LogFixture.T0.plusSeconds(61))));
        assertThat(texts(s.at("/confidence/gaps"))).contains("stale_source");
        assertThat(s.at("/confidence/gap_reasons/stale_source").asText()).contains("ttl_seconds 60");
    }
}
