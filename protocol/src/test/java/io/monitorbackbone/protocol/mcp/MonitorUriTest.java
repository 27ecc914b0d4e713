package io.monitorbackbone.protocol.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

class MonitorUriTest {
    @Test
    void bothViewsParseWithOrWithoutAToken() {
        MonitorUri state = MonitorUri.parse("monitor://ci-1/state?token=a%2Bb");
        MonitorUri definition = MonitorUri.parse("monitor://ci-1/definition?token=");

        assertThat(state.monitorId()).isEqualTo("ci-1");
        assertThat(state.state()).isTrue();
        assertThat(state.bearer("header")).isEqualTo("a+b");
        assertThat(definition.state()).isFalse();
        assertThat(definition.token()).as("an empty token is none").isNull();
        assertThat(definition.bearer("header")).isEqualTo("header");
    }

    @Test
    void anythingElseIsNotFound() {
        for (String uri : new String[] {
            null,
            "monitor://ci-1/other",
            "monitor://x/state",
            "file:///etc/passwd",
            "monitor://ci-1/state?token=t&other=1"
        }) {
            assertThatThrownBy(() -> MonitorUri.parse(uri))
                    .as(uri)
                    .isInstanceOfSatisfying(
                            ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        }
        assertThat(MonitorUri.isMonitorUri("monitor://anything")).isTrue();
        assertThat(MonitorUri.isMonitorUri("file://x")).isFalse();
    }
}
