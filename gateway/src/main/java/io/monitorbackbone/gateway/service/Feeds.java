package io.monitorbackbone.gateway.service;

import io.monitorbackbone.gateway.kafka.Catalog;
import io.monitorbackbone.gateway.kafka.LogReader;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import com.fasterxml.jackson.databind.JsonNode;

/** Opens {@link Feed}s: the one place a pull, an ack, a stream or a lag count resolves its subscription and filters. */
final class Feeds {
    private final Catalog catalog;
    private final LogReader reader;
    private final Access access;

    Feeds(Catalog catalog, LogReader reader, Access access) {
        this.catalog = catalog;
        this.reader = reader;
        this.access = access;
    }

    /**
     * The feed of the subscription the bearer holds the token of, with an inline filter (null: none) checked against
     * the types the monitor knows and refused if it would widen a stored one.
     */
    Feed open(String subscriptionId, String bearer, JsonNode inlineFilter) {
        Subscription s = access.authorized(subscriptionId, bearer);
        Monitor monitor = access.monitorOf(s);
        Filter inline = inlineFilter == null ? Filter.ALL : access.filter(inlineFilter, monitor);
        return open(s, monitor, inline);
    }

    /** The feed of a subscription already authorised (one just created or re-keyed), with no inline filter. */
    Feed of(Subscription s, Monitor monitor) {
        return open(s, monitor, Filter.ALL);
    }

    private Feed open(Subscription s, Monitor monitor, Filter inline) {
        Filter monitorFilter = Filter.parse(monitor.filter(), null);
        Filter subscriptionFilter = Filter.parse(s.filter(), null);
        Feed.requireNarrows(inline, s.filter(), subscriptionFilter, monitor.filter(), monitorFilter);
        return new Feed(s, monitor, Feed.effective(monitorFilter, subscriptionFilter, Filter.ALL),
                Feed.effective(monitorFilter, subscriptionFilter, inline), catalog.log(s.monitor()), reader, access);
    }
}
