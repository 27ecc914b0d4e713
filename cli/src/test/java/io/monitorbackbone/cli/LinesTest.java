package io.monitorbackbone.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import org.junit.jupiter.api.Test;

class LinesTest {

    private static JsonNode json(String text) {
        return Json.read(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void anObservationIsOneLineWithItsAttributesAndCompactData() {
        JsonNode o = json("""
                {"id":"270","type":"demo.ping","subject":"host-1","tier":"measured","origin":"human","actor":"human:dana",
                 "data": { "rtt_ms" : 10, "tags": {"monitor": "w"} }}""");

        String line = Lines.observation("OBS", o);

        assertThat(line)
                .isEqualTo("OBS seq=270 type=demo.ping subject=host-1 tier=measured origin=human actor=human:dana"
                        + " redelivered=false data={\"rtt_ms\":10,\"tags\":{\"monitor\":\"w\"}}");
    }

    @Test
    void redeliveredIsTakenFromTheObservationAndAMissingSubjectIsADash() {
        JsonNode o = json("{\"id\":\"3\",\"type\":\"t.x\",\"subject\":null,\"redelivered\":true,\"data\":{}}");

        String line = Lines.observation("CATCHUP", o);

        assertThat(line).isEqualTo("CATCHUP seq=3 type=t.x subject=- tier=- origin=- actor=- redelivered=true data={}");
    }

    @Test
    void dataOverFourHundredCharactersIsCutToFourHundredEndingInDots() {
        JsonNode o = json("{\"id\":\"1\",\"data\":{\"s\":\"" + "x".repeat(1000) + "\"}}");

        String data = Lines.observation("OBS", o).replaceFirst(".* data=", "");

        assertThat(data).hasSize(400).startsWith("{\"s\":\"xxx").endsWith("x...");
    }

    @Test
    void dataOfExactlyFourHundredCharactersIsKeptWhole() {
        String s = "y".repeat(400 - "{\"s\":\"\"}".length());
        JsonNode data = json("{\"s\":\"" + s + "\"}");

        assertThat(Lines.data(data)).hasSize(400).isEqualTo("{\"s\":\"" + s + "\"}");
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        String text = "a".repeat(396) + "\uD83D\uDE00" + "tail";

        String cut = Lines.cut(text, 400);

        assertThat(cut).isEqualTo("a".repeat(396) + "...");
    }

    @Test
    void valuesWithSpacesOrLineBreaksAreQuotedSoTheLineStaysOneLine() {
        JsonNode o = json(
                "{\"id\":\"1\",\"subject\":\"two words\\nand a line\",\"actor\":\"agent:x\",\"data\":{\"m\":\"a\\u2028b\"}}");

        String line = Lines.observation("OBS", o);

        assertThat(line)
                .doesNotContain("\n", "\r", "\u2028")
                .contains(" subject=\"two words\\nand a line\" ")
                .contains(" actor=agent:x ")
                .endsWith("data={\"m\":\"a\\u2028b\"}");
    }

    @Test
    void controlLinesHaveFixedShapes() {
        JsonNode state = json("""
                {"monitor":"ci","head":9,"retention_floor":4,"live":{"value":true,"reason":null},
                 "confidence":{"gaps":["single_actor","no_subscribers"]}}""");

        assertThat(Lines.next(273, false)).isEqualTo("NEXT 273");
        assertThat(Lines.next(273, true)).isEqualTo("NEXT 273 acked");
        assertThat(Lines.idle(272, 0, false)).isEqualTo("HEAD 272 LAG 0");
        assertThat(Lines.idle(5000, 1000, true)).isEqualTo("HEAD 5000 LAG 1000+");
        assertThat(Lines.expired(4, 0L)).isEqualTo("EXPIRED retention_floor=4 requested=0");
        assertThat(Lines.state("ci", state))
                .isEqualTo(
                        "STATE monitor=ci live=true reason=- head=9 retention_floor=4 gaps=single_actor,no_subscribers");
        assertThat(Lines.down("cannot connect\nto x", true))
                .isEqualTo("DOWN cannot connect to x; retrying, nothing is lost while the server is away");
        assertThat(Lines.down("cannot connect", false)).isEqualTo("DOWN cannot connect; not retrying (--once)");
        assertThat(Lines.up(7L)).isEqualTo("UP the server answers again; resuming at 7");
        assertThat(Lines.error(401, "{\"code\":\"UNAUTHORIZED\"}\n"))
                .isEqualTo("ERROR 401 {\"code\":\"UNAUTHORIZED\"}");
    }

    @Test
    void theRelistPathNamesTheMonitorInEitherServersForm() {
        assertThat(WatchLoop.monitorFromRelist("monitors/ci-1/state")).isEqualTo("ci-1");
        assertThat(WatchLoop.monitorFromRelist("monitors/state?id=w-75719")).isEqualTo("w-75719");
        assertThat(WatchLoop.monitorFromRelist(null)).isNull();
    }

    @Test
    void theBaseMayEndInASlashOrTheProtocolPath() {
        assertThat(new MonitorClient("http://127.0.0.1:8130/").base()).isEqualTo("http://127.0.0.1:8130");
        assertThat(new MonitorClient("http://127.0.0.1:8130/mp/v0").base()).isEqualTo("http://127.0.0.1:8130");
    }
}
