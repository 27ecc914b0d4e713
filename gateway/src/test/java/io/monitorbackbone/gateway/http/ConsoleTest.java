package io.monitorbackbone.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsoleTest {

    @Test
    void aPageOfThisServerUnderANameItAnswersToIsSameOrigin() {
        assertThat(Console.sameOrigin("http://127.0.0.1:8130", "127.0.0.1:8130", true))
                .isTrue();
        assertThat(Console.sameOrigin("https://Monitors.Example:443", "monitors.example:443", true))
                .isTrue();
    }

    @Test
    void anotherPortSchemeOrNameIsNot() {
        assertThat(Console.sameOrigin("http://127.0.0.1:8131", "127.0.0.1:8130", true))
                .isFalse();
        assertThat(Console.sameOrigin("http://localhost:8130", "127.0.0.1:8130", true))
                .isFalse();
        assertThat(Console.sameOrigin("ftp://127.0.0.1:8130", "127.0.0.1:8130", true))
                .isFalse();
        assertThat(Console.sameOrigin("null", "127.0.0.1:8130", true)).isFalse();
        assertThat(Console.sameOrigin("http://127.0.0.1:8130", null, true)).isFalse();
    }

    @Test
    void aRebindingPageWhoseOriginAndHostAgreeIsStillForeign() {
        // evil.example resolves to this server: the browser sends Origin and Host of that name, which the server does
        // not answer to (not a loopback name, not in MP_ALLOW_HOST).
        assertThat(Console.sameOrigin("http://evil.example:8130", "evil.example:8130", false))
                .isFalse();
    }

    @Test
    void onlyTheConsolesOwnFilesAreServed() {
        assertThat(Console.serves("/")).isTrue();
        assertThat(Console.serves("/console/app.js")).isTrue();
        assertThat(Console.serves("/console/console.css")).isTrue();
        assertThat(Console.serves("/index.html")).isFalse();
        assertThat(Console.serves("/console/")).isFalse();
        assertThat(Console.serves("/console/../application.properties")).isFalse();
        assertThat(Console.serves("/console/sub/app.js")).isFalse();
        assertThat(Console.serves("/q/health")).isFalse();
        assertThat(Console.serves("/META-INF/resources/index.html")).isFalse();
    }
}
