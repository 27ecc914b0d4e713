package io.monitorbackbone.binding;

import io.monitorbackbone.protocol.Draft;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Headers;

/**
 * {@link ObservationCodec#decode(String, Headers, byte[], long)} for a reader that decodes one log's records one after
 * another on one thread (a fold, a follower): the same drafts (ObservationDecoderTest), for less. A header whose bytes
 * equal the previous record's in the same place (its source, type, tier, origin, actor, and a batch's time) is the
 * previous record's text, and a time equal to the previous record's is not parsed and formatted again. Not
 * thread-safe: one per reading thread.
 */
public final class ObservationDecoder {
    private final byte[][] lastBytes = new byte[ObservationCodec.OWN_HEADERS.size()][];
    private final String[] lastText = new String[ObservationCodec.OWN_HEADERS.size()];
    private String lastTime;
    private String lastServed;

    /** Never fails: see {@link ObservationCodec#decode(String, Headers, byte[], long)}. */
    public Draft decode(String monitorId, Headers headers, byte[] value, long timestamp) {
        return ObservationCodec.decode(monitorId, headers, value, timestamp, this);
    }

    /** The text of a header's value, the previous record's when its bytes in this slot were the same. */
    String text(int slot, byte[] value) {
        if (Arrays.equals(value, lastBytes[slot])) {
            return lastText[slot];
        }
        String text = new String(value, StandardCharsets.UTF_8);
        lastBytes[slot] = value;
        lastText[slot] = text;
        return text;
    }

    /** {@link ObservationCodec#servedTime}, the previous record's answer when its time was the same. */
    String served(String time) {
        if (!time.equals(lastTime)) {
            lastServed = ObservationCodec.servedTime(time);
            lastTime = time;
        }
        return lastServed;
    }
}
