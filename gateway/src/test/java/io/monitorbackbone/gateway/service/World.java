package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.gateway.service.fake.FakeLeaseDecisions;
import io.monitorbackbone.gateway.service.fake.FakeLog;
import io.monitorbackbone.gateway.service.fake.FakeLogAdmin;
import io.monitorbackbone.gateway.service.fake.FakeTables;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.request.CreateMonitor;
import io.monitorbackbone.protocol.request.Subscribe;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * Every service composed as CDI composes them, over the in-memory fakes of the ports and a clock the test moves by
 * hand; the worker pool runs each task on the calling thread.
 */
final class World {
    static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");

    final MutableClock clock = new MutableClock(T0);
    final FakeTables tables = new FakeTables();
    final FakeLog log = new FakeLog(tables);
    final FakeLogAdmin logAdmin = new FakeLogAdmin(tables, log);
    final FakeLeaseDecisions decisions = new FakeLeaseDecisions();
    final Parking parking = new Parking();
    final LeaseService leases = new LeaseService(tables, log, decisions, clock);
    final MonitorService monitors;
    final PublishService publish = new PublishService(tables, log, Runnable::run, clock);
    final SubscriptionService subscriptions = new SubscriptionService(tables, log, leases, clock);
    final DeliveryService delivery = new DeliveryService(tables, log, Runnable::run, clock, parking);
    final AdminService admin;
    /** What the fake Kafka says of each source topic; a topic not here does not exist. */
    final java.util.Map<String, java.util.List<BridgeOffsets.Partition>> sourceTopics = new java.util.HashMap<>();
    /** The topics the last bridges read asked about, monitor id to topic. */
    final java.util.Map<String, String> askedTopics = new java.util.HashMap<>();

    private final BridgeOffsets bridgeOffsets = (topics, timeout) -> {
        askedTopics.clear();
        askedTopics.putAll(topics);
        java.util.Map<String, BridgeOffsets.Source> out = new java.util.LinkedHashMap<>();
        topics.forEach((id, topic) -> out.put(
                id,
                sourceTopics.containsKey(topic)
                        ? new BridgeOffsets.Source(null, sourceTopics.get(topic))
                        : new BridgeOffsets.Source("the topic does not exist", java.util.List.of())));
        return out;
    };

    World() {
        this(Optional.empty(), Optional.empty());
    }

    World(Optional<String> registrationToken, Optional<String> adminToken) {
        monitors = new MonitorService(logAdmin, tables, log, leases, registrationToken, clock);
        admin = new AdminService(adminToken, logAdmin, tables, log, bridgeOffsets);
    }

    /** A public monitor {@code id} of type {@code demo.note}, created through the service; its owner token. */
    String monitor(String id) {
        return monitor(id, "public");
    }

    String monitor(String id, String visibility) {
        ObjectNode body = Json.object();
        body.put("id", id);
        body.put("visibility", visibility);
        body.putArray("types").add("demo.note");
        body.putArray("capabilities").add("observe").add("act");
        return monitors.create(CreateMonitor.parse(body), null)
                .body()
                .get("owner_token")
                .asText();
    }

    /** A subscription of {@code subscriber} on the monitor, with the given capabilities: {id, token}. */
    String[] subscribe(String monitorId, String subscriber, String bearer, String... capabilities) {
        ObjectNode body = Json.object();
        body.put("monitor", monitorId);
        body.put("subscriber", subscriber);
        var caps = body.putArray("capabilities");
        for (String c : capabilities) {
            caps.add(c);
        }
        JsonNode reply = subscriptions.subscribe(Subscribe.parse(body), bearer).body();
        return new String[] {
            reply.get("subscription").get("id").asText(), reply.get("token").asText()
        };
    }

    /** Publishes one {@code demo.note} about {@code subject} as the owner; its seq. */
    long publish(String monitorId, String ownerToken, String subject) {
        ObjectNode body = Json.object();
        body.put("type", "demo.note");
        body.put("subject", subject);
        body.put("actor", "probe:test");
        body.put("tier", "measured");
        body.put("origin", "probe");
        body.putObject("data").put("n", subject);
        return publish.publish(monitorId, ownerToken, Json.bytes(body))
                .toCompletableFuture()
                .join()
                .body()
                .get("seq")
                .asLong();
    }

    static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        void advance(java.time.Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }
}
