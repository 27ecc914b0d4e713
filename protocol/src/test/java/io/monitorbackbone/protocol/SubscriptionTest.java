package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SubscriptionTest {

    @Test
    void aPushSubscriptionReadBackFromItsTableKeepsItsSecretAndWhyItStopped() throws Exception {
        Subscription pushing = new Subscription(
                "sub-1",
                "m1",
                "hook:a",
                Json.object(),
                List.of("observe"),
                "none",
                "http",
                "https://example.com/hook",
                null,
                "2026-12-01T00:00:00.000Z",
                true,
                Tokens.hash("t"),
                Webhooks.mintSecret(),
                null);
        Subscription stopped = pushing.pushDisabled(Json.object().put("status", 410));

        Subscription read = Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(pushing), Subscription.class);
        Subscription readStopped = Json.MAPPER.readValue(Json.MAPPER.writeValueAsBytes(stopped), Subscription.class);

        assertThat(read).isEqualTo(pushing);
        assertThat(read.pushes()).isTrue();
        assertThat(readStopped.pushDisabled().get("status").asInt()).isEqualTo(410);
        assertThat(readStopped.pushes()).isFalse();
    }

    @Test
    void aSubscriptionWrittenBeforePushExistedReadsWithoutIt() throws Exception {
        String before = "{\"id\":\"sub-2\",\"monitor\":\"m1\",\"subscriber\":\"agent:a\",\"filter\":{},"
                + "\"capabilities\":[\"observe\"],\"reset_policy\":\"none\",\"protocol\":\"pull\",\"sink\":null,"
                + "\"retire_after_mute_seconds\":null,\"created\":\"2026-12-01T00:00:00.000Z\",\"active\":true,"
                + "\"token_hash\":\"ab\"}";

        Subscription read = Json.MAPPER.readValue(before, Subscription.class);

        assertThat(read.pushSecret()).isNull();
        assertThat(read.pushDisabled()).isNull();
        assertThat(read.pushes()).isFalse();
    }

    @Test
    void theServedSubscriptionShowsThePushNeverItsSecret() {
        Subscription pushing = new Subscription(
                "sub-1",
                "m1",
                "hook:a",
                Json.object(),
                List.of("observe"),
                "none",
                "http",
                "https://example.com/hook",
                null,
                "2026-12-01T00:00:00.000Z",
                true,
                Tokens.hash("t"),
                "whsec_c2VjcmV0",
                null);

        var served = pushing.served(Cursor.start(1, "2026-12-01T00:00:00.000Z"), 0);

        assertThat(served.at("/push/active").asBoolean()).isTrue();
        assertThat(served.toString()).doesNotContain("whsec_c2VjcmV0").doesNotContain("push_secret");
    }
}
