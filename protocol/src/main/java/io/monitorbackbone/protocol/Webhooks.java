package io.monitorbackbone.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signing for push delivery ({@code protocol: "http"}): a subscription's secret is
 * {@code whsec_} + base64 of 24 random bytes, and a delivery's {@code webhook-signature} is {@code v1,} + base64 of the
 * HMAC-SHA256, keyed with the secret's bytes, of {@code <webhook-id>.<webhook-timestamp>.<body>}.
 */
public final class Webhooks {
    public static final String SECRET_PREFIX = "whsec_";
    public static final String ID_HEADER = "webhook-id";
    public static final String TIMESTAMP_HEADER = "webhook-timestamp";
    public static final String SIGNATURE_HEADER = "webhook-signature";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int SECRET_BYTES = 24;

    private Webhooks() {}

    public static String mintSecret() {
        byte[] key = new byte[SECRET_BYTES];
        RANDOM.nextBytes(key);
        return SECRET_PREFIX + Base64.getEncoder().encodeToString(key);
    }

    /**
     * The delivery id of one observation to one subscription: the same on every attempt, after a restart and from
     * whichever gateway pushes, so a receiver drops what it has seen by this header alone.
     */
    public static String deliveryId(String subscriptionId, long seq) {
        return subscriptionId + "_" + seq;
    }

    /** {@code v1,<base64 HMAC-SHA256 of "id.timestamp.body">}, keyed with the secret's decoded bytes. */
    public static String sign(String secret, String id, long timestampSeconds, byte[] body) {
        String encoded = secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret;
        byte[] key = Base64.getDecoder().decode(encoded);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update((id + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
            mac.update(body);
            return "v1," + Base64.getEncoder().encodeToString(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
