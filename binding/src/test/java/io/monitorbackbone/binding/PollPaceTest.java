package io.monitorbackbone.binding;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PollPaceTest {
    private static final long MS = 1_000_000L;
    /** What Streams asks of an idle thread's poll: its {@code poll.ms}. */
    private static final Duration ASKED = Duration.ofMillis(250);

    @Test
    void anIdleThreadWaitsTheLongPollAndABusyOneTheCommitInterval() {
        PollPace pace = new PollPace(10);
        long t = 1_000 * MS;

        assertThat(pace.next(ASKED, t)).isEqualTo(ASKED);
        pace.polled(false, t);
        assertThat(pace.next(ASKED, t)).isEqualTo(ASKED);

        // Commands read: the polls that follow are short until the commit interval has run out once more, so the
        // loop turn that commits (and makes their replies visible) comes no later than with a 10 ms poll.
        pace.polled(true, t);
        assertThat(pace.next(ASKED, t)).isEqualTo(Duration.ofMillis(10));
        pace.polled(false, t + 10 * MS);
        assertThat(pace.next(ASKED, t + 10 * MS)).isEqualTo(Duration.ofMillis(10));
        pace.polled(false, t + 20 * MS);
        assertThat(pace.next(ASKED, t + 20 * MS)).isEqualTo(ASKED);

        // A poll Streams asks to be shorter stays as short (while restoring it asks for none).
        pace.polled(true, t + 30 * MS);
        assertThat(pace.next(Duration.ZERO, t + 30 * MS)).isEqualTo(Duration.ZERO);
    }

    @Test
    void aLongCommitIntervalKeepsBusyPollsAtOneHundredMillisecondsForAllOfIt() {
        PollPace pace = new PollPace(1_000);
        long t = 5 * MS;
        pace.polled(true, t);

        assertThat(pace.next(ASKED, t + 999 * MS)).isEqualTo(Duration.ofMillis(100));
        assertThat(pace.next(ASKED, t + 1_099 * MS)).isEqualTo(Duration.ofMillis(100));
        assertThat(pace.next(ASKED, t + 1_100 * MS)).isEqualTo(ASKED);
    }
}
