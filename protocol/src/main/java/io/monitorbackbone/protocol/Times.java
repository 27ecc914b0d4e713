package io.monitorbackbone.protocol;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * Timestamps as the protocol serves them: UTC, milliseconds, {@code Z}. Every publish parses one and every record read
 * parses its {@code ce_time} and formats one, so the served shape ({@code 2026-11-29T18:00:00.000Z}, years 0000 to
 * 9999) is written by hand, and UTC times with {@code Z} and up to nine fraction digits are read by hand
 * ({@link #readByHand}); anything else goes through {@link DateTimeFormatter}, and TimesTest holds both ways to the
 * same answers.
 */
public final class Times {
    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    /** The served shape, {@code d} standing for an ASCII digit. */
    private static final String SERVED_SHAPE = "dddd-dd-ddTdd:dd:dd.dddZ";

    /** The date and time of day to the second that every text read by hand starts with. */
    private static final String SECONDS_SHAPE = "dddd-dd-ddTdd:dd:dd";

    /** Nanoseconds per unit of a fraction of so many digits. */
    private static final int[] NANO_SCALE = {
        1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
    };

    private static final long FIRST_SECOND = LocalDateTime.of(0, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
    private static final long LAST_SECOND =
            LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);

    private Times() {}

    public static String format(Instant instant) {
        long second = instant.getEpochSecond();
        if (second < FIRST_SECOND || second > LAST_SECOND) {
            return formatWithFormatter(instant);
        }
        LocalDateTime t = LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
        byte[] out = new byte[SERVED_SHAPE.length()];
        digits(out, 0, t.getYear(), 4);
        out[4] = '-';
        digits(out, 5, t.getMonthValue(), 2);
        out[7] = '-';
        digits(out, 8, t.getDayOfMonth(), 2);
        out[10] = 'T';
        digits(out, 11, t.getHour(), 2);
        out[13] = ':';
        digits(out, 14, t.getMinute(), 2);
        out[16] = ':';
        digits(out, 17, t.getSecond(), 2);
        out[19] = '.';
        digits(out, 20, instant.getNano() / 1_000_000, 3);
        out[23] = 'Z';
        return new String(out, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** The same as {@link #format}, always through {@link DateTimeFormatter}: what TimesTest compares it with. */
    static String formatWithFormatter(Instant instant) {
        return MILLIS.format(instant.truncatedTo(ChronoUnit.MILLIS));
    }

    /** An RFC 3339 date-time with a zone; null when it is not one. */
    public static Instant parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        int fraction = utcFractionDigits(text);
        if (fraction >= 0) {
            try {
                return LocalDateTime.of(
                                number(text, 0, 4),
                                number(text, 5, 2),
                                number(text, 8, 2),
                                number(text, 11, 2),
                                number(text, 14, 2),
                                number(text, 17, 2),
                                number(text, 20, fraction) * NANO_SCALE[fraction])
                        .toInstant(ZoneOffset.UTC);
            } catch (DateTimeException e) {
                // A day, hour, minute or second out of range: what the formatter refuses too.
                return null;
            }
        }
        return parseWithFormatter(text);
    }

    /** The same as {@link #parseOrNull}, always through {@link DateTimeFormatter}: what TimesTest compares it with. */
    static Instant parseWithFormatter(String text) {
        if (text == null) {
            return null;
        }
        try {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(text, Instant::from);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Whether {@link #parseOrNull} reads the text by hand: {@code dddd-dd-ddTdd:dd:dd}, then a point and one to nine
     * digits or nothing, then {@code Z}. That is the served shape and every {@code ce_time} the log's records carry
     * (whole seconds without a fraction, the fraction without its trailing zeros); those without exactly three
     * fraction digits, about one server-stamped time in ten, had gone through the formatter.
     */
    static boolean readByHand(String text) {
        return text != null && utcFractionDigits(text) >= 0;
    }

    /** The number of fraction digits of a text {@link #readByHand} reads, -1 for any other text. */
    private static int utcFractionDigits(String text) {
        int n = text.length();
        if (n < SECONDS_SHAPE.length() + 1 || n > SECONDS_SHAPE.length() + 11 || text.charAt(n - 1) != 'Z') {
            return -1;
        }
        for (int i = 0; i < SECONDS_SHAPE.length(); i++) {
            char want = SECONDS_SHAPE.charAt(i);
            char c = text.charAt(i);
            if (want == 'd' ? c < '0' || c > '9' : c != want) {
                return -1;
            }
        }
        if (n == SECONDS_SHAPE.length() + 1) {
            return 0;
        }
        int digits = n - SECONDS_SHAPE.length() - 2;
        if (text.charAt(SECONDS_SHAPE.length()) != '.' || digits < 1) {
            return -1;
        }
        for (int i = SECONDS_SHAPE.length() + 1; i < n - 1; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        return digits;
    }

    private static int number(String text, int from, int length) {
        int n = 0;
        for (int i = from; i < from + length; i++) {
            n = n * 10 + (text.charAt(i) - '0');
        }
        return n;
    }

    private static void digits(byte[] out, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            out[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
    }
}
