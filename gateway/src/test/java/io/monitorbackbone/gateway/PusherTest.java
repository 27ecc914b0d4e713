package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.monitorbackbone.gateway.service.PushService;
import io.monitorbackbone.gateway.service.Tables;
import io.monitorbackbone.protocol.Subscription;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The pusher's timer looks for work ten times a second only while this gateway pushes and a subscription does;
 * otherwise it waits for the duty or a pushing subscription to arrive. Its idle wait here is an hour, so every look
 * after the first comes from a wake or from a subscription that pushes.
 */
class PusherTest {
    private final AtomicInteger looks = new AtomicInteger();
    private final AtomicReference<List<Subscription>> pushing = new AtomicReference<>(List.of());
    private final AtomicReference<Runnable> listener = new AtomicReference<>();

    /** Tables with nothing but pushing subscriptions, whose monitors it does not hold: the pusher only looks. */
    private final Tables tables = (Tables) Proxy.newProxyInstance(
            Tables.class.getClassLoader(), new Class<?>[] {Tables.class}, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "pushingSubscriptions":
                        looks.incrementAndGet();
                        return pushing.get();
                    case "onPushing":
                        listener.set((Runnable) args[0]);
                        return null;
                    case "monitor":
                        return null;
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    case "equals":
                        return proxy == args[0];
                    case "toString":
                        return "tables";
                    default:
                        throw new UnsupportedOperationException(method.getName());
                }
            });

    @Test
    void withNothingToPushItLooksOnlyWhenTheDutyOrAPushingSubscriptionArrives() {
        try (Pusher pusher =
                new Pusher(tables, new PushService(tables, null, null, Clock.systemUTC()), Duration.ofHours(1))) {
            pusher.start();
            assertThat(listener.get())
                    .as("the pusher listens for pushing subscriptions")
                    .isNotNull();
            // Not the one that pushes: it does not look at the subscriptions at all.
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> looks.get() == 0);

            pusher.lead(true);
            await("a look once the duty arrived").atMost(Duration.ofSeconds(30)).until(() -> looks.get() >= 1);
            int first = looks.get();
            // Nothing pushes: no look for a second (ten at the 100 ms tick).
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> looks.get() == first);

            pushing.set(List.of(pushingSubscription()));
            listener.get().run();
            await("a look once a pushing subscription was applied")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> looks.get() > first);
            // Now something pushes: it looks again and again without being woken.
            int woken = looks.get();
            await("looks at the tick while a subscription pushes")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> looks.get() >= woken + 5);
        }
    }

    private static Subscription pushingSubscription() {
        Subscription s = new Subscription(
                "sub-1",
                "m-unknown",
                "agent:hook",
                null,
                List.of("observe"),
                "head",
                "http",
                "http://127.0.0.1:9/hook",
                null,
                "2026-12-08T00:00:00Z",
                true,
                "hash",
                "secret",
                null);
        assertThat(s.pushes()).isTrue();
        return s;
    }
}
