package io.monitorbackbone.projector;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The value of a by-monitor repartition record: a log record's seq, headers and value in one byte array, so the
 * repartition record itself has no headers.
 *
 * <p>Each header of a Kafka record is paid for by every client and the broker on the way: Kafka Streams measures
 * every record it buffers and sends by encoding each header key to UTF-8 again, the producer writes the headers one
 * by one, the broker walks them when it validates a batch, and the consumer builds a {@code Header} with a new
 * {@code String} key for each. A record of a monitor's log carries about a dozen CloudEvents headers; carried as
 * headers through the repartition they cost the projector about as much again as reading them once from the log
 * (docs/benchmarks.md, 2026-12-04). Framed in the value they are bytes the repartition copies.
 *
 * <pre>
 * byte  MAGIC ('m'), byte VERSION (1), long seq, int header count,
 * per header: int key length, key (UTF-8), int value length (-1: null), value,
 * the log record's value (the rest)
 * </pre>
 *
 * A producer's own {@link ProjectorTopology#SEQ_HEADER} is left out: only the offset is the seq. A repartition
 * record without {@link #MAGIC} and {@link #VERSION} is one an earlier version wrote (the log record's headers and
 * an {@code mp_seq} header, its value unchanged); {@link ProjectorTopology}'s decode still reads those.
 */
final class ByMonitorRecord {
    static final byte MAGIC = 'm';
    static final byte VERSION = 1;
    private static final int FIXED = 2 + Long.BYTES + Integer.BYTES;

    /** A log record as the fold's side of the repartition reads it. */
    record Unpacked(long seq, Headers headers, byte[] value) {}

    private ByMonitorRecord() {}

    static byte[] pack(long seq, Headers headers, byte[] value) {
        Header[] all = headers == null ? new Header[0] : headers.toArray();
        byte[][] keys = new byte[all.length][];
        int count = 0;
        int size = FIXED + value.length;
        for (int i = 0; i < all.length; i++) {
            if (ProjectorTopology.SEQ_HEADER.equals(all[i].key())) {
                continue;
            }
            keys[i] = all[i].key().getBytes(StandardCharsets.UTF_8);
            byte[] v = all[i].value();
            size += 2 * Integer.BYTES + keys[i].length + (v == null ? 0 : v.length);
            count++;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(MAGIC).put(VERSION).putLong(seq).putInt(count);
        for (int i = 0; i < all.length; i++) {
            if (keys[i] == null) {
                continue;
            }
            byte[] v = all[i].value();
            out.putInt(keys[i].length).put(keys[i]);
            if (v == null) {
                out.putInt(-1);
            } else {
                out.putInt(v.length).put(v);
            }
        }
        return out.put(value).array();
    }

    /**
     * @return the log record, or null for a value that is not one {@link #pack} wrote (an earlier version's record,
     *     or bytes cut short)
     */
    static Unpacked unpack(byte[] packed) {
        if (packed == null || packed.length < FIXED || packed[0] != MAGIC || packed[1] != VERSION) {
            return null;
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(packed);
            in.position(2);
            long seq = in.getLong();
            int count = in.getInt();
            if (count < 0 || count > in.remaining() / (2 * Integer.BYTES)) {
                return null;
            }
            RecordHeaders headers = new RecordHeaders();
            for (int i = 0; i < count; i++) {
                byte[] key = bytes(in, in.getInt());
                int length = in.getInt();
                byte[] value = length == -1 ? null : bytes(in, length);
                headers.add(new String(key, StandardCharsets.UTF_8), value);
            }
            return new Unpacked(seq, headers, Arrays.copyOfRange(packed, in.position(), packed.length));
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
            // A length below -1 or past the end: not a record this class wrote.
            return null;
        }
    }

    private static byte[] bytes(ByteBuffer in, int length) {
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("length " + length + " with " + in.remaining() + " bytes left");
        }
        byte[] b = new byte[length];
        in.get(b);
        return b;
    }
}
