package io.monitorbackbone.protocol;

/**
 * A monitor's sequence numbers. The log is one Kafka partition and {@code seq = offset + 1}, so seq 0 never names an
 * observation and any number of writers get distinct, increasing seqs from the broker.
 */
public final class Seq {
    private Seq() {}

    public static long fromOffset(long offset) {
        return offset + 1;
    }

    /** The offset at which reading must start to deliver {@code seq} and everything after it. */
    public static long offsetOf(long seq) {
        return Math.max(0, seq - 1);
    }

    /** The CloudEvents {@code sequence} extension: the seq zero-padded to 20 digits, comparable as a string. */
    public static String sequence(long seq) {
        if (seq < 0) {
            return String.format("%020d", seq);
        }
        // Every served observation carries one, and String.format parses its pattern on each call.
        String digits = Long.toString(seq);
        return "0".repeat(20 - digits.length()) + digits;
    }
}
