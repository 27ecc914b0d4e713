package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Filter;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;

/** Opens {@link Feed}s: the one place a pull, an ack, a stream or a lag count resolves its subscription and filters. */
final class Feeds {
    private final Tables tables;
    private final Log log;
    private final Access access;

    Feeds(Tables tables, Log log, Access access) {
        this.tables = tables;
        this.log = log;
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
        return open(s, monitor, inline, true);
    }

    /**
     * The feed of a subscription already authorised (one just created or re-keyed, or the pusher's), with no inline
     * filter. It follows the log only once its tail is asked for: a subscribe counts the lag and needs no tail, and
     * following there made each first subscription to a monitor wait for the follower to take the log up (up to its
     * 500 ms fetch wait).
     */
    Feed of(Subscription s, Monitor monitor) {
        return open(s, monitor, Filter.ALL, false);
    }

    /** @param follow whether the log is followed from now on (a reader's request), else once the tail is asked for */
    private Feed open(Subscription s, Monitor monitor, Filter inline, boolean follow) {
        Filter monitorFilter = Filter.parse(monitor.filter(), null);
        Filter subscriptionFilter = Filter.parse(s.filter(), null);
        Feed.requireNarrows(inline, s.filter(), subscriptionFilter, monitor.filter(), monitorFilter);
        return new Feed(
                s,
                monitor,
                Feed.effective(monitorFilter, subscriptionFilter, Filter.ALL),
                Feed.effective(monitorFilter, subscriptionFilter, inline),
                tail(s.monitor(), follow),
                log,
                access);
    }

    private java.util.function.Supplier<Tables.Tail> tail(String monitorId, boolean follow) {
        if (!follow) {
            return () -> tables.tail(monitorId);
        }
        Tables.Tail followed = tables.tail(monitorId);
        return () -> followed;
    }
}
