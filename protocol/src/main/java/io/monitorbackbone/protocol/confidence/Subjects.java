package io.monitorbackbone.protocol.confidence;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Subject keys the aggregate holds: short subjects verbatim, long ones by digest, so an entry's size is bounded. */
public final class Subjects {
    /** Longer subjects, and any that could be mistaken for a digest, are kept as {@code sha256:<32 hex>}. */
    public static final int MAX_VERBATIM = 64;

    static final String DIGEST_PREFIX = "sha256:";

    private Subjects() {}

    /** The key of a subject; a missing subject is the monitor as a whole, the empty key. */
    public static String key(String subject) {
        if (subject == null) {
            return "";
        }
        if (subject.length() <= MAX_VERBATIM && !subject.startsWith(DIGEST_PREFIX)) {
            return subject;
        }
        return DIGEST_PREFIX + HexFormat.of().formatHex(sha256(subject.getBytes(StandardCharsets.UTF_8)), 0, 16);
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
