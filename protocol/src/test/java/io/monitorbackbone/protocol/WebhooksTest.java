package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class WebhooksTest {

    @Test
    void signsAsTheStandardWebhooksSpecificationsExample() {
        // The example of the Standard Webhooks specification: secret, id, timestamp and body, and its signature.
        String signature = Webhooks.sign(
                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                "msg_p5jXN8AQM9LWM0D4loKWxJek",
                1614265330L,
                "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8));

        assertThat(signature).isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void aMintedSecretIsPrefixedBase64OfTwentyFourRandomBytes() {
        String a = Webhooks.mintSecret();
        String b = Webhooks.mintSecret();

        assertThat(a).startsWith("whsec_").isNotEqualTo(b);
        assertThat(Base64.getDecoder().decode(a.substring("whsec_".length()))).hasSize(24);
    }

    @Test
    void theDeliveryIdDependsOnlyOnTheSubscriptionAndTheSeq() {
        assertThat(Webhooks.deliveryId("sub-1a2b3c4d", 42))
                .isEqualTo(Webhooks.deliveryId("sub-1a2b3c4d", 42))
                .isNotEqualTo(Webhooks.deliveryId("sub-1a2b3c4d", 43))
                .doesNotContain(".");
    }
}
