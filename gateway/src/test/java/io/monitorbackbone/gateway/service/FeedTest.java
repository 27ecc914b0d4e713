package io.monitorbackbone.gateway.service;

import static io.monitorbackbone.gateway.service.Fixtures.json;
import static io.monitorbackbone.gateway.service.Fixtures.object;
import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.gateway.service.fake.FakeTables;
import io.monitorbackbone.protocol.Cursor;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Subscription;
import java.util.List;
import org.junit.jupiter.api.Test;

class FeedTest {
    private static Filter filter(String json) {
        return Filter.parse(json(json), null);
    }

    private static ProtocolException refusal(Runnable r) {
        try {
            r.run();
        } catch (ProtocolException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }

    /** A catalog holding one monitor, one subscription and its cursor, as the follower would have left them. */
    private static Feeds feeds(Monitor monitor, Subscription s, Cursor cursor) {
        FakeTables tables = new FakeTables();
        tables.apply(monitor);
        tables.apply(s);
        tables.apply(s.id(), cursor);
        // No log: every decision under test is made before anything is read.
        return new Feeds(tables, null, new Access(tables, null));
    }

    @Test
    void theEffectiveFilterPassesOnlyWhatEveryFilterPasses() {
        Filter effective = Feed.effective(
                filter("{\"types\":[\"x.*\"]}"),
                filter("{\"types\":[\"x.a\",\"x.b\"]}"),
                filter("{\"subjects\":[\"build-1\"]}"));
        assertThat(effective.matches(object("{\"type\":\"x.a\",\"subject\":\"build-1\"}")))
                .isTrue();
        assertThat(effective.matches(object("{\"type\":\"x.a\",\"subject\":\"build-2\"}")))
                .isFalse();
        assertThat(effective.matches(object("{\"type\":\"x.c\",\"subject\":\"build-1\"}")))
                .isFalse();
        assertThat(effective.matches(object("{\"type\":\"y.a\",\"subject\":\"build-1\"}")))
                .isFalse();
        assertThat(Feed.effective(Filter.ALL, Filter.ALL, Filter.ALL).passesEverything())
                .isTrue();
    }

    @Test
    void anInlineFilterThatWouldWidenAStoredOneIsRefusedNamingWhichAndWhere() {
        ProtocolException onSubscription = refusal(() -> Feed.requireNarrows(
                filter("{\"types\":[\"x.b\"]}"),
                json("{\"types\":[\"x.a\"]}"),
                filter("{\"types\":[\"x.a\"]}"),
                null,
                Filter.ALL));
        assertThat(onSubscription.code()).isEqualTo(ErrorCode.INVALID_FILTER);
        assertThat(onSubscription.toJson())
                .isEqualTo(json("{\"code\":\"INVALID_FILTER\",\"error\":\"inline filter would widen key"
                        + " 'types' (x.b outside the subscription's stored filter); it may only narrow\",\"done\":[],\"key\":\"types\","
                        + "\"stored\":{\"types\":[\"x.a\"]},\"stored_on\":\"subscription\",\"outside\":[\"x.b\"]}"));

        ProtocolException onMonitor = refusal(() -> Feed.requireNarrows(
                filter("{\"types\":[\"y.a\"]}"),
                json("{}"),
                Filter.ALL,
                json("{\"types\":[\"x.*\"]}"),
                filter("{\"types\":[\"x.*\"]}")));
        assertThat(onMonitor.toJson().get("stored_on").asText()).isEqualTo("monitor");
        assertThat(onMonitor.toJson().get("stored")).isEqualTo(json("{\"types\":[\"x.*\"]}"));
    }

    @Test
    void anInlineFilterThatNarrowsIsAccepted() {
        Feed.requireNarrows(
                filter("{\"types\":[\"x.a\"]}"),
                json("{\"types\":[\"x.*\"]}"),
                filter("{\"types\":[\"x.*\"]}"),
                null,
                Filter.ALL);
        Feed.requireNarrows(
                filter("{\"subjects\":[\"build-1\"]}"),
                json("{\"types\":[\"x.a\"]}"),
                filter("{\"types\":[\"x.a\"]}"),
                json("{\"types\":[\"x.a\"]}"),
                filter("{\"types\":[\"x.a\"]}"));
        Feed.requireNarrows(
                Filter.ALL, json("{\"types\":[\"x.a\"]}"), filter("{\"types\":[\"x.a\"]}"), null, Filter.ALL);
    }

    @Test
    void aPullStartsAtTheReplayItNamesElseAtTheCommittedCursor() {
        assertThat(Feed.start(null, () -> 7)).isEqualTo(7);
        assertThat(Feed.start(3L, () -> {
                    throw new AssertionError("a replay never needs the committed cursor");
                }))
                .isEqualTo(3);
        assertThat(Feed.start(0L, () -> 7)).isZero();
    }

    @Test
    void aStreamStartsAfterItsLastEventElseAtItsCursorParameterElseAtTheCommittedCursor() {
        assertThat(Feed.streamStart("41", "3", () -> 7)).isEqualTo(42);
        assertThat(Feed.streamStart(" 41 ", null, () -> 7)).isEqualTo(42);
        assertThat(Feed.streamStart(null, "3", () -> 7)).isEqualTo(3);
        assertThat(Feed.streamStart(null, null, () -> 7)).isEqualTo(7);
        assertThat(refusal(() -> Feed.streamStart("x", null, () -> 7)).getMessage())
                .isEqualTo("Last-Event-ID must be an integer");
        assertThat(refusal(() -> Feed.streamStart(null, "-1", () -> 7)).toJson())
                .isEqualTo(
                        json(
                                "{\"code\":\"INVALID\",\"error\":\"cursor must be a non-negative integer\",\"done\":[],\"cursor\":null}"));
    }

    @Test
    void aStartBelowTheFloorIsRefusedForAReplayOrUnderNoneAndResetOtherwise() {
        assertThat(Feed.expiry(5, 5, true, "none")).isEqualTo(Feed.Expiry.READ);
        assertThat(Feed.expiry(0, 1, false, "none")).as("seq 0 never existed").isEqualTo(Feed.Expiry.READ);
        assertThat(Feed.expiry(4, 5, true, "earliest")).isEqualTo(Feed.Expiry.REFUSE);
        assertThat(Feed.expiry(4, 5, false, "none")).isEqualTo(Feed.Expiry.REFUSE);
        assertThat(Feed.expiry(4, 5, false, "earliest")).isEqualTo(Feed.Expiry.RESET);
        assertThat(Feed.expiry(4, 5, false, "latest")).isEqualTo(Feed.Expiry.RESET);
        Log.Bounds bounds = new Log.Bounds(20, 5, 21);
        assertThat(Feed.resetTarget("earliest", bounds)).isEqualTo(5);
        assertThat(Feed.resetTarget("latest", bounds)).isEqualTo(21);
        assertThat(Feed.expired("m-1", 5, 4).toJson().toString())
                .isEqualTo(json("{\"code\":\"CURSOR_EXPIRED\",\"error\":\"cursor below"
                                + " retention floor; relist from state, then pull from the floor\",\"done\":[],\"retention_floor\":5,"
                                + "\"relist\":\"monitors/m-1/state\",\"requested\":4}")
                        .toString());
    }

    @Test
    void aFeedIsOpenedOnceWithTheSubscriptionsFiltersAndReadsTheCursorAsCommitted() {
        Monitor monitor = Fixtures.monitor("m-1", "public", "{\"types\":[\"x.*\"]}", List.of("x.a", "x.b"));
        Subscription s = Fixtures.subscription("sub-1", "m-1", "{\"types\":[\"x.a\",\"x.b\"]}", "none");
        Feeds feeds = feeds(monitor, s, Cursor.start(4, Fixtures.AT));

        Feed feed = feeds.open("sub-1", Fixtures.READER_TOKEN, object("{\"types\":[\"x.a\"]}"));
        assertThat(feed.subscription()).isEqualTo(s);
        assertThat(feed.monitor()).isEqualTo(monitor);
        assertThat(feed.filter().matches(object("{\"type\":\"x.a\"}"))).isTrue();
        assertThat(feed.filter().matches(object("{\"type\":\"x.b\"}")))
                .as("the inline filter narrows")
                .isFalse();
        assertThat(feed.committed().cursor()).isEqualTo(4);

        assertThat(feeds.open("sub-1", Fixtures.READER_TOKEN, null).filter().matches(object("{\"type\":\"x.b\"}")))
                .isTrue();
    }

    @Test
    void openingAFeedChecksTheTokenAndTheInlineFilterFirst() {
        Monitor monitor = Fixtures.monitor("m-1", "public", null, List.of("x.a", "x.b"));
        Subscription s = Fixtures.subscription("sub-1", "m-1", "{\"types\":[\"x.a\"]}", "none");
        Feeds feeds = feeds(monitor, s, Cursor.start(1, Fixtures.AT));

        assertThat(refusal(() -> feeds.open("sub-1", "wrong", null)).code()).isEqualTo(ErrorCode.UNAUTHORIZED);
        assertThat(refusal(() -> feeds.open("sub-2", Fixtures.READER_TOKEN, null))
                        .code())
                .isEqualTo(ErrorCode.NOT_FOUND);
        assertThat(refusal(() -> feeds.open("sub-1", Fixtures.READER_TOKEN, object("{\"types\":[\"x.b\"]}")))
                        .toJson()
                        .get("stored_on")
                        .asText())
                .isEqualTo("subscription");
    }
}
