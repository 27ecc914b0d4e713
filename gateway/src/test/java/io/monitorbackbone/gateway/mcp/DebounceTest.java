package io.monitorbackbone.gateway.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DebounceTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aBurstAfterARunIsRunOnceWhenTheIntervalIsOver() {
        List<Long> runs = new CopyOnWriteArrayList<>();
        Debounce debounce = new Debounce(Duration.ofMillis(300), timer, () -> runs.add(System.nanoTime()));
        debounce.signal();
        await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 1);

        for (int i = 0; i < 200; i++) {
            debounce.signal();
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() >= 2);
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 2);
        assertThat(Duration.ofNanos(runs.get(1) - runs.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aSignalAfterAQuietIntervalRunsWithoutWaiting() {
        AtomicInteger runs = new AtomicInteger();
        Debounce debounce = new Debounce(Duration.ofSeconds(30), timer, runs::incrementAndGet);

        debounce.signal();

        await().atMost(Duration.ofSeconds(30)).until(() -> runs.get() == 1);
        debounce.signal();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30)).until(() -> runs.get() == 1);
        assertThat(runs.get()).as("the second signal waits out the interval").isEqualTo(1);
    }
}
