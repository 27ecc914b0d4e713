package io.monitorbackbone.binding;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Draft;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Times;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * {@link ObservationCodec#encode} for a writer that encodes many records in a row on one thread: the same records, byte
 * for byte but for the random {@code ce_id} (ObservationEncoderTest), for less. A header value equal to the previous
 * record's (the source, a batch's time, tier, origin and actor) reuses that record's bytes (Kafka only reads a header's
 * value), the {@code data} is written by one generator kept from record to record instead of a new one each time, and
 * a fresh {@code ce_id} is a random UUID from this encoder's own generator, seeded once from {@link SecureRandom},
 * instead of the JDK's shared {@code SecureRandom}. Together they were about half of an encode (CodecBench). Not
 * thread-safe: one per writing thread.
 */
public final class ObservationEncoder {
    private static final byte[] SPECVERSION_1_0 = bytes("1.0");
    private static final byte[] JSON = bytes(ObservationCodec.JSON);
    private static final int TYPE = 0;
    private static final int SUBJECT = 1;
    private static final int TIER = 2;
    private static final int ORIGIN = 3;
    private static final int VERIFIED = 4;
    private static final int HORIZON = 5;
    private static final int ACTOR = 6;
    private static final int SOURCE = 7;
    private static final int TIME = 8;

    private final String[] last = new String[9];
    private final byte[][] lastBytes = new byte[9][];
    private final SplittableRandom random = new SplittableRandom(new SecureRandom().nextLong());
    private final ByteArrayBuilder buffer = new ByteArrayBuilder();
    private JsonGenerator generator;

    /** @param eventId the {@code ce_id}; null for a fresh random one */
    public ProducerRecord<String, byte[]> encode(String topic, String monitorId, String eventId, Draft draft) {
        Headers headers = new RecordHeaders();
        headers.add(new RecordHeader(ObservationCodec.SPECVERSION, SPECVERSION_1_0));
        headers.add(new RecordHeader(ObservationCodec.ID, bytes(eventId == null ? randomId() : eventId)));
        headers.add(new RecordHeader(ObservationCodec.SOURCE, repeated(SOURCE, monitorId, true)));
        headers.add(new RecordHeader(
                ObservationCodec.TYPE, repeated(TYPE, Objects.requireNonNull(draft.type(), "type"), false)));
        headers.add(new RecordHeader(ObservationCodec.CONTENT_TYPE, JSON));
        if (draft.subject() != null) {
            headers.add(new RecordHeader(ObservationCodec.SUBJECT, repeated(SUBJECT, draft.subject(), false)));
        }
        headers.add(new RecordHeader(ObservationCodec.TIME, time(draft.time())));
        headers.add(new RecordHeader(ObservationCodec.TIER, repeated(TIER, extension("tier", draft.tier()), false)));
        headers.add(new RecordHeader(
                ObservationCodec.ORIGIN, repeated(ORIGIN, extension("origin", draft.origin()), false)));
        headers.add(new RecordHeader(
                ObservationCodec.VERIFIED, repeated(VERIFIED, extension("verified", draft.verified()), false)));
        headers.add(new RecordHeader(
                ObservationCodec.HORIZON, repeated(HORIZON, extension("horizon", draft.horizon()), false)));
        headers.add(
                new RecordHeader(ObservationCodec.ACTOR, repeated(ACTOR, extension("actor", draft.actor()), false)));
        return new ProducerRecord<>(topic, null, null, draft.subject(), data(draft.data()), headers);
    }

    /** A version 4 UUID, as {@link UUID#randomUUID} makes one. */
    private String randomId() {
        long high = (random.nextLong() & ~0xF000L) | 0x4000L;
        long low = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(high, low).toString();
    }

    /** The bytes of {@code value}, the previous record's when it had the same value in this slot. */
    private byte[] repeated(int slot, String value, boolean source) {
        if (value.equals(last[slot])) {
            return lastBytes[slot];
        }
        byte[] b = bytes(source ? ObservationCodec.SOURCE_PREFIX + value : value);
        last[slot] = value;
        lastBytes[slot] = b;
        return b;
    }

    private byte[] time(String served) {
        if (served != null && served.equals(last[TIME])) {
            return lastBytes[TIME];
        }
        Instant at = Objects.requireNonNull(Times.parseOrNull(served), "time");
        byte[] b = bytes(ObservationCodec.rfc3339(at));
        last[TIME] = served;
        lastBytes[TIME] = b;
        return b;
    }

    private byte[] data(ObjectNode data) {
        if (data == null) {
            return Json.bytes(null);
        }
        try {
            if (generator == null) {
                generator = Json.MAPPER.getFactory().createGenerator(buffer);
                generator.setRootValueSeparator(null);
            }
            Json.MAPPER.writeTree(generator, data);
            generator.flush();
            return buffer.toByteArray();
        } catch (IOException | RuntimeException e) {
            generator = null; // a generator that failed half way is not written with again
            if (e instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw (RuntimeException) e;
        } finally {
            buffer.reset();
        }
    }

    /** The SDK refused a missing extension value when it wrote the event; so does this. */
    private static String extension(String name, String value) {
        if (value == null) {
            throw new IllegalStateException("the extension " + name + " has no value");
        }
        return value;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
