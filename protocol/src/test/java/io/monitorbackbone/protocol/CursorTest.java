package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CursorTest {

    @Test
    void aStaleWriteNeverLowersTheCursorWithinAnEpoch() {
        Cursor acked = new Cursor(0, 10, 12, 12, "2026-01-01T00:00:01.000Z");
        Cursor stale = new Cursor(0, 5, 7, 7, "2026-01-01T00:00:00.000Z");

        assertThat(acked.merge(stale)).isEqualTo(acked);
        assertThat(stale.merge(acked)).isEqualTo(acked);
    }

    @Test
    void aHigherEpochWinsEvenWhenItMovesBackwards() {
        Cursor before = new Cursor(0, 10, 12, 12, "2026-01-01T00:00:01.000Z");
        Cursor seeked = new Cursor(1, 3, 12, 12, "2026-01-01T00:00:02.000Z");

        assertThat(before.merge(seeked)).isEqualTo(seeked);
        assertThat(seeked.merge(before)).isEqualTo(seeked);
    }

    @Test
    void aFreshSubscriptionHasDeliveredNothingYet() {
        Cursor start = Cursor.start(7, "2026-01-01T00:00:00.000Z");

        assertThat(start.isRedelivery(7)).isFalse();
        assertThat(start.isRedelivery(6)).isTrue();
        assertThat(start.deliveredUpTo(9, 3, "t").isRedelivery(9)).isTrue();
    }

    @Test
    void aLowerLastRecordDoesNotCarryTheMergeOfEveryWrite() {
        Cursor higher = new Cursor(0, 10, 12, 12, "2026-01-01T00:00:01.000Z");
        Cursor lower = new Cursor(0, 9, 12, 12, "2026-01-01T00:00:01.000Z");
        Cursor fold = higher.merge(lower);

        assertThat(higher.carries(fold)).isTrue();
        assertThat(lower.carries(fold))
                .as("what a compaction would keep if the lower write landed last")
                .isFalse();
        assertThat(lower.carries(null)).isTrue();
        assertThat(new Cursor(0, 10, 12, 12, "2026-01-01T00:00:00.000Z").carries(fold))
                .as("an older last_pull is something a compaction would lose too")
                .isFalse();
    }

    @Test
    void aSeekCarriesEveryWriteOfTheEpochsBeforeIt() {
        Cursor before = new Cursor(0, 10, 12, 12, "2026-01-01T00:00:01.000Z");
        Cursor seeked = new Cursor(1, 3, 12, 12, "2026-01-01T00:00:02.000Z");

        assertThat(seeked.carries(before.merge(seeked))).isTrue();
        assertThat(before.carries(before.merge(seeked))).isFalse();
    }
}
