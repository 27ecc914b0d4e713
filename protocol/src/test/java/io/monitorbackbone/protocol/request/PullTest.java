package io.monitorbackbone.protocol.request;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Limits;
import io.monitorbackbone.protocol.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PullTest {
    private static Map<String, List<String>> query(String... pairs) {
        Map<String, List<String>> q = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            q.computeIfAbsent(pairs[i], k -> new java.util.ArrayList<>()).add(pairs[i + 1]);
        }
        return q;
    }

    private static ObjectNode params(String json) {
        return (ObjectNode) Json.read(json.getBytes(StandardCharsets.UTF_8));
    }

    private static ProtocolException refusal(Runnable parse) {
        try {
            parse.run();
        } catch (ProtocolException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }

    @Test
    void anEmptyPullServesTheDefaultPageFromTheCommittedCursorAtOnce() {
        Pull pull = Pull.fromQuery(Map.of());
        assertThat(pull).isEqualTo(new Pull(Limits.DEFAULT_LIMIT, 0, null, Json.object()));
        assertThat(Pull.fromParams(params("{\"subscription\":\"sub-1\",\"bearer\":\"t\",\"_meta\":{}}")))
                .isEqualTo(pull);
    }

    @Test
    void boundsAreClampedToWhatDiscoverAnnouncesAndACursorIsTakenAsGiven() {
        assertThat(Pull.fromQuery(query("limit", "1000", "wait", "999", "cursor", "7")))
                .isEqualTo(new Pull(Limits.MAX_LIMIT, Limits.MAX_WAIT_SECONDS, 7L, Json.object()));
        assertThat(Pull.fromQuery(query("limit", "0", "wait", "-5"))).isEqualTo(new Pull(1, 0, null, Json.object()));
        assertThat(Pull.fromParams(params("{\"limit\":1000,\"wait\":\"3\",\"cursor\":0}")))
                .isEqualTo(new Pull(Limits.MAX_LIMIT, 3, 0L, Json.object()));
        assertThat(Pull.fromQuery(query("limit", ""))).extracting(Pull::limit).isEqualTo(Limits.DEFAULT_LIMIT);
    }

    @Test
    void aReaderThatAsksForLargePagesIsClampedToTheLargeLimitAndOneThatDoesNotToMaxLimit() {
        assertThat(Pull.fromQuery(query("limit", "5000", "large_pages", "true")))
                .isEqualTo(new Pull(Limits.LARGE_PAGE_MAX_LIMIT, 0, null, Json.object()));
        assertThat(Pull.fromQuery(query("limit", "99999", "large_pages", "true"))
                        .limit())
                .isEqualTo(Limits.LARGE_PAGE_MAX_LIMIT);
        assertThat(Pull.fromParams(params("{\"limit\":3000,\"large_pages\":true}"))
                        .limit())
                .isEqualTo(3000);
        assertThat(Pull.fromQuery(query("limit", "5000", "large_pages", "false"))
                        .limit())
                .isEqualTo(Limits.MAX_LIMIT);
        assertThat(Pull.fromQuery(query("limit", "5000")).limit()).isEqualTo(Limits.MAX_LIMIT);
        assertThat(Pull.fromQuery(query("large_pages", "true")).limit()).isEqualTo(Limits.DEFAULT_LIMIT);

        ProtocolException odd = refusal(() -> Pull.fromQuery(query("large_pages", "yes")));
        assertThat(odd.code()).isEqualTo(ErrorCode.INVALID);
        assertThat(odd.toJson().get("large_pages").asText()).isEqualTo("yes");
    }

    @Test
    void aNumberThatIsNotAnIntegerIsRefusedNamingIt() {
        ProtocolException limit = refusal(() -> Pull.fromQuery(query("limit", "ten")));
        assertThat(limit.code()).isEqualTo(ErrorCode.INVALID);
        assertThat(limit.toJson())
                .isEqualTo(params(
                        "{\"code\":\"INVALID\",\"error\":\"limit must be an integer\",\"done\":[],\"limit\":\"ten\"}"));
        ProtocolException waitParam = refusal(() -> Pull.fromParams(params("{\"wait\":2.5}")));
        assertThat(waitParam.toJson())
                .isEqualTo(params(
                        "{\"code\":\"INVALID\",\"error\":\"wait must be an integer\",\"done\":[],\"wait\":\"2.5\"}"));
        assertThat(refusal(() -> Pull.fromQuery(query("wait", "1" + "0".repeat(18))))
                        .getMessage())
                .isEqualTo("wait must be an integer");
    }

    @Test
    void aCursorIsANonNegativeIntegerWhateverCarriesIt() {
        ObjectNode expected = params(
                "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":null}");
        assertThat(refusal(() -> Pull.fromQuery(query("cursor", "-1"))).toJson())
                .isEqualTo(expected);
        assertThat(refusal(() -> Pull.fromQuery(query("cursor", ""))).toJson()).isEqualTo(expected);
        assertThat(refusal(() -> Pull.fromParams(params("{\"cursor\":\"x\"}"))).toJson())
                .isEqualTo(expected);
        assertThat(refusal(() -> Pull.fromParams(params("{\"cursor\":null}"))).toJson())
                .isEqualTo(expected);
    }

    @Test
    void everyOtherKeyIsAnInlineFilterListKeysSplitOnCommas() {
        Pull fromQuery = Pull.fromQuery(
                query("types", "x.a,x.b", "types", "x.c", "#team", "core", "since_seq", "4", "limit", "5"));
        assertThat(fromQuery.inlineFilter())
                .isEqualTo(params("{\"types\":[\"x.a\",\"x.b\",\"x.c\"],\"#team\":[\"core\"],\"since_seq\":\"4\"}"));
        assertThat(fromQuery.limit()).isEqualTo(5);
        Pull fromParams = Pull.fromParams(
                params(
                        "{\"subscription\":\"sub-1\",\"types\":[\"x.a,x.b\",\"x.c\"],\"#team\":\"core\",\"since_seq\":4,\"limit\":5}"));
        assertThat(fromParams).isEqualTo(fromQuery);
    }

    @Test
    void anUnknownKeyIsKeptForTheFilterToRefuse() {
        assertThat(Pull.fromParams(params("{\"colour\":[]}")).inlineFilter()).isEqualTo(params("{\"colour\":\"\"}"));
        assertThat(Pull.fromQuery(query("colour", "red")).inlineFilter()).isEqualTo(params("{\"colour\":\"red\"}"));
    }
}
