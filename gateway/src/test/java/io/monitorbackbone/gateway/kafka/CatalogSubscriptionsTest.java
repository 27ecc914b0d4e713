package io.monitorbackbone.gateway.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.protocol.Subscription;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogSubscriptionsTest {

    private static Subscription subscription(String id, String monitor, boolean active, boolean pushes) {
        return new Subscription(
                id,
                monitor,
                "agent:" + id,
                null,
                List.of("observe"),
                "latest",
                pushes ? "http" : null,
                pushes ? "http://127.0.0.1:9/sink" : null,
                null,
                "2026-12-07T00:00:00Z",
                active,
                "hash-" + id,
                pushes ? "secret" : null,
                null);
    }

    private static Subscription pull(String id, String monitor, boolean active) {
        return subscription(id, monitor, active, false);
    }

    private static Subscription push(String id, String monitor, boolean active) {
        return subscription(id, monitor, active, true);
    }

    private static List<String> ids(List<Subscription> subscriptions) {
        return subscriptions.stream().map(Subscription::id).sorted().toList();
    }

    @Test
    void aMonitorsSubscriptionsAreItsOwnAndTheLatestOfEach() {
        Catalog catalog = new Catalog(8);
        catalog.apply(pull("s1", "m", true));
        catalog.apply(pull("s2", "other", true));
        catalog.apply(push("s3", "m", true));
        catalog.apply(pull("s1", "m", false));

        assertThat(ids(catalog.subscriptionsOf("m"))).containsExactly("s1", "s3");
        assertThat(catalog.subscriptionsOf("m"))
                .filteredOn(s -> s.id().equals("s1"))
                .singleElement()
                .extracting(Subscription::active)
                .isEqualTo(false);
        assertThat(ids(catalog.subscriptionsOf("other"))).containsExactly("s2");
        assertThat(catalog.subscriptionsOf("none")).isEmpty();
        assertThat(catalog.subscriptionOf("m", "agent:s3").id()).isEqualTo("s3");
    }

    @Test
    void onlySubscriptionsThatPushNowAreThePushersAndAMovedOneIsListedOnce() {
        Catalog catalog = new Catalog(8);
        catalog.apply(push("p1", "m", true));
        catalog.apply(push("p2", "other", true));
        catalog.apply(pull("s1", "m", true));
        assertThat(ids(catalog.pushingSubscriptions())).containsExactly("p1", "p2");

        // Closed, or its push disabled: no longer the pusher's; active again: back.
        catalog.apply(push("p1", "m", false));
        assertThat(ids(catalog.pushingSubscriptions())).containsExactly("p2");
        catalog.apply(push("p2", "other", true).pushDisabled(io.monitorbackbone.protocol.Json.object()));
        assertThat(catalog.pushingSubscriptions()).isEmpty();
        catalog.apply(push("p1", "m", true));
        assertThat(ids(catalog.pushingSubscriptions())).containsExactly("p1");

        // A record naming another monitor for the same id leaves it under that monitor only.
        catalog.apply(push("p1", "third", true));
        assertThat(ids(catalog.subscriptionsOf("m"))).containsExactly("s1");
        assertThat(ids(catalog.subscriptionsOf("third"))).containsExactly("p1");
        assertThat(catalog.pushingSubscriptions())
                .singleElement()
                .extracting(Subscription::monitor)
                .isEqualTo("third");
    }
}
