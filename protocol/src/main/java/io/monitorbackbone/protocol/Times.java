package io.monitorbackbone.protocol;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/** Timestamps as the protocol serves them: UTC, milliseconds, {@code Z}. */
public final class Times {
    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Times() {}

    public static String format(Instant instant) {
        return MILLIS.format(instant.truncatedTo(ChronoUnit.MILLIS));
    }

    /** An RFC 3339 date-time with a zone; null when it is not one. */
    public static Instant parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        try {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(text, Instant::from);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
