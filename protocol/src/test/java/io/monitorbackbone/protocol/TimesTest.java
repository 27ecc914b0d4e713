package io.monitorbackbone.protocol;

import static java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The hand-written served shape, and the hand-read UTC times, against {@link java.time.format.DateTimeFormatter}, which
 * they must always agree with.
 */
class TimesTest {
    private static final long FROM = LocalDateTime.of(-3, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
    private static final long TO = LocalDateTime.of(10003, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);

    @Test
    void formatsEveryInstantAsTheFormatterDoes() {
        SplittableRandom random = new SplittableRandom(7);
        List<Instant> instants = new ArrayList<>(List.of(
                Instant.EPOCH,
                Instant.parse("0000-01-01T00:00:00Z"),
                Instant.parse("0000-01-01T00:00:00Z").minusNanos(1),
                Instant.parse("9999-12-31T23:59:59.999999999Z"),
                Instant.parse("9999-12-31T23:59:59.999999999Z").plusNanos(1),
                Instant.parse("1969-12-31T23:59:59.999500Z"),
                Instant.parse("2024-02-29T12:00:00.001Z")));
        for (int i = 0; i < 40_000; i++) {
            instants.add(Instant.ofEpochSecond(random.nextLong(FROM, TO), random.nextInt(1_000_000_000)));
        }
        for (Instant instant : instants) {
            assertThat(Times.format(instant)).as("%s", instant).isEqualTo(Times.formatWithFormatter(instant));
        }
        assertThat(Times.format(Instant.parse("2026-11-29T18:00:00.1239Z"))).isEqualTo("2026-11-29T18:00:00.123Z");
    }

    @Test
    void parsesEveryTextAsTheFormatterDoes() {
        SplittableRandom random = new SplittableRandom(11);
        List<String> texts = new ArrayList<>(List.of(
                "2026-11-29T18:00:00.000Z",
                "0000-01-01T00:00:00.000Z",
                "9999-12-31T23:59:59.999Z",
                "2024-02-29T00:00:00.000Z",
                "2023-02-29T00:00:00.000Z",
                "2100-02-29T00:00:00.000Z",
                "2000-02-29T00:00:00.000Z",
                "2026-04-31T00:00:00.000Z",
                "2026-13-01T00:00:00.000Z",
                "2026-00-01T00:00:00.000Z",
                "2026-01-00T00:00:00.000Z",
                "2026-01-01T24:00:00.000Z",
                "2026-01-01T23:60:00.000Z",
                "2026-01-01T23:59:60.000Z",
                "2026-01-01t00:00:00.000Z",
                "2026-01-01T00:00:00.000z",
                "2026-01-01T00:00:00.000+00:00",
                "2026-01-01T01:00:00.000+01:00",
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:00.1Z",
                "2026-01-01T00:00:00.123456789Z",
                "2026-01-01T00:00:00.1234567891Z",
                "2026-01-01T00:00:00.Z",
                "2026-01-01T00:00:00.000000000Z",
                "2026-01-01T00:00Z",
                "+2026-01-01T00:00:00.000Z",
                "2026-1-01T00:00:00.0000Z",
                "２026-01-01T00:00:00.000Z",
                "",
                "not a time"));
        String digits = "0123456789";
        String noise = "0123456789-T:.Z+ zt";
        for (int i = 0; i < 40_000; i++) {
            // Any digits in the served shape: days, hours, minutes, seconds out of range.
            StringBuilder b = new StringBuilder("dddd-dd-ddTdd:dd:dd.dddZ");
            for (int at = 0; at < b.length(); at++) {
                if (b.charAt(at) == 'd') {
                    b.setCharAt(at, digits.charAt(random.nextInt(digits.length())));
                }
            }
            texts.add(b.toString());
            // Valid ones: a random instant's served form, and the same with one character changed.
            String valid = Times.formatWithFormatter(
                    Instant.ofEpochSecond(random.nextLong(FROM, TO), random.nextInt(1_000_000_000)));
            texts.add(valid);
            StringBuilder changed = new StringBuilder(valid);
            changed.setCharAt(random.nextInt(changed.length()), noise.charAt(random.nextInt(noise.length())));
            texts.add(changed.toString());
            // The shapes of ce_time: any number of fraction digits (none, and more than nine, included), any digits.
            StringBuilder fraction = new StringBuilder("dddd-dd-ddTdd:dd:dd");
            for (int at = 0; at < fraction.length(); at++) {
                if (fraction.charAt(at) == 'd') {
                    fraction.setCharAt(at, digits.charAt(random.nextInt(digits.length())));
                }
            }
            int fractionDigits = random.nextInt(12) - 1;
            if (fractionDigits >= 0) {
                fraction.append('.');
            }
            for (int d = 0; d < fractionDigits; d++) {
                fraction.append(digits.charAt(random.nextInt(digits.length())));
            }
            texts.add(fraction.append('Z').toString());
            String ceTime =
                    ISO_OFFSET_DATE_TIME.format(OffsetDateTime.ofInstant(randomInstant(random), ZoneOffset.UTC));
            texts.add(ceTime);
            StringBuilder changedCeTime = new StringBuilder(ceTime);
            changedCeTime.setCharAt(
                    random.nextInt(changedCeTime.length()), noise.charAt(random.nextInt(noise.length())));
            texts.add(changedCeTime.toString());
        }
        int parsed = 0;
        for (String text : texts) {
            Instant expected = Times.parseWithFormatter(text);
            assertThat(Times.parseOrNull(text)).as(text).isEqualTo(expected);
            parsed += expected == null ? 0 : 1;
        }
        // Both outcomes were tried many times.
        assertThat(parsed).isBetween(texts.size() / 4, texts.size() * 9 / 10);
        assertThat(Times.parseOrNull(null)).isNull();
    }

    /**
     * Every {@code ce_time} the log's records carry (ObservationCodec writes ISO_OFFSET_DATE_TIME of the UTC time) is
     * read without the formatter, which each read of a record had gone through.
     */
    @Test
    void readsEveryCeTimeByHand() {
        SplittableRandom random = new SplittableRandom(13);
        for (int i = 0; i < 20_000; i++) {
            Instant instant = randomInstant(random);
            Instant[] shapes = {
                instant,
                instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS),
                instant.truncatedTo(java.time.temporal.ChronoUnit.MILLIS),
                instant.truncatedTo(java.time.temporal.ChronoUnit.MICROS)
            };
            for (Instant shape : shapes) {
                String text = ISO_OFFSET_DATE_TIME.format(OffsetDateTime.ofInstant(shape, ZoneOffset.UTC));
                assertThat(Times.readByHand(text)).as(text).isTrue();
                assertThat(Times.parseOrNull(text)).as(text).isEqualTo(shape);
            }
            assertThat(Times.readByHand(Times.format(instant))).isTrue();
        }
        assertThat(Times.readByHand("2026-01-01T00:00:00+00:00")).isFalse();
        assertThat(Times.readByHand("2026-01-01T00:00:00.Z")).isFalse();
        assertThat(Times.readByHand(null)).isFalse();
    }

    /** An instant whose year has four digits, as the log's records and the served shape have. */
    private static Instant randomInstant(SplittableRandom random) {
        long from = LocalDateTime.of(0, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
        long to = LocalDateTime.of(10000, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
        return Instant.ofEpochSecond(random.nextLong(from, to), random.nextInt(1_000_000_000));
    }
}
