package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.bridge.BridgeApp;
import io.monitorbackbone.bridge.BridgeCounts;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Seq;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.request.Compact;
import io.monitorbackbone.protocol.request.KafkaSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code /mp/v0/admin/*}: present only when an admin token is configured (otherwise those paths do not exist), and only
 * for that token. Compaction moves retention floors with Kafka's deleteRecords; the snapshot shows token hashes, never
 * tokens.
 */
@ApplicationScoped
public class AdminService {
    private final Optional<String> adminTokenHash;
    private final LogAdmin logAdmin;
    private final Tables tables;
    private final Log log;
    private final BridgeOffsets bridgeOffsets;

    /** How long a bridges answer waits for Kafka before it names what it could not read. */
    static final Duration BRIDGES_TIMEOUT = Duration.ofSeconds(10);

    @Inject
    public AdminService(
            @ConfigProperty(name = "mp.admin-token") Optional<String> adminToken,
            LogAdmin logAdmin,
            Tables tables,
            Log log,
            BridgeOffsets bridgeOffsets) {
        this.adminTokenHash = adminToken.map(Tokens::hash);
        this.logAdmin = logAdmin;
        this.tables = tables;
        this.log = log;
        this.bridgeOffsets = bridgeOffsets;
    }

    /** The route of every bridged monitor's lag, as an unknown route names it where the admin endpoints are off. */
    public static final String BRIDGES = "GET /mp/v0/admin/bridges";

    /** The route compact answers on, as an unknown route names it where the admin endpoints are off. */
    public static final String COMPACT = "POST /mp/v0/admin/compact";

    /**
     * Refuses unless the admin endpoints are on (an admin token is configured: else 404, as for any unknown route) and
     * the bearer is the admin token (401).
     */
    public void authorize(String bearer, String path) {
        if (adminTokenHash.isEmpty()) {
            throw ProtocolException.unknownRoute(path);
        }
        if (!Tokens.matches(bearer, adminTokenHash.get())) {
            throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "the admin endpoints require the admin token");
        }
    }

    public Reply snapshot(String bearer) {
        authorize(bearer, "GET /mp/v0/admin/snapshot");
        tables.catchUp(Topics.MONITORS);
        tables.catchUp(Topics.SUBSCRIPTIONS);
        tables.catchUp(Topics.CURSORS);
        tables.catchUp(Topics.LEASES);
        ObjectNode snapshot = Json.object();
        ArrayNode monitors = snapshot.putArray("monitors");
        tables.monitors().stream()
                .sorted(Comparator.comparing(Monitor::id))
                .forEach(m -> monitors.add(Json.MAPPER.valueToTree(m)));
        ArrayNode subscriptions = snapshot.putArray("subscriptions");
        ObjectNode cursors = snapshot.putObject("cursors");
        for (Monitor m : tables.monitors()) {
            for (Subscription s : tables.subscriptionsOf(m.id())) {
                // A push secret signs deliveries and is shown once, at subscribe: never here.
                ObjectNode row = Json.MAPPER.valueToTree(s);
                row.remove("push_secret");
                subscriptions.add(row);
                if (tables.cursor(s.id()) != null) {
                    cursors.set(s.id(), Json.MAPPER.valueToTree(tables.cursor(s.id())));
                }
            }
        }
        // What the leases service last wrote to mp.leases, as this gateway's view has read it.
        ArrayNode leases = snapshot.putArray("leases");
        tables.monitors().stream()
                .map(Monitor::id)
                .sorted()
                .forEach(id -> tables.leasesOf(id).values().stream()
                        .sorted(Comparator.comparing(io.monitorbackbone.protocol.lease.Lease::subject))
                        .forEach(lease -> leases.add(lease.toJson().put("monitor", id))));
        return Reply.of(200, snapshot);
    }

    /**
     * Every bridged monitor that is not retired (docs/adr/0015-bridge.md): its source's partitions, the group's lag
     * behind their ends and what each has become (bridged, rejected, dead-lettered), read from Kafka now.
     */
    public Reply bridges(String bearer) {
        authorize(bearer, BRIDGES);
        tables.catchUp(Topics.MONITORS);
        Map<String, String> topics = new TreeMap<>();
        Map<String, Monitor> monitors = new HashMap<>();
        for (Monitor m : tables.monitors()) {
            KafkaSource source = sourceOf(m);
            if (source != null && !m.retired()) {
                topics.put(m.id(), source.topic());
                monitors.put(m.id(), m);
            }
        }
        Map<String, BridgeOffsets.Source> read = bridgeOffsets.read(topics, BRIDGES_TIMEOUT);
        ObjectNode reply = Json.object();
        ArrayNode bridges = reply.putArray("bridges");
        topics.forEach((id, topic) -> bridges.add(bridge(monitors.get(id), topic, read.get(id))));
        return Reply.of(200, reply);
    }

    /** One monitor's bridge, retired ones included; a monitor whose source is not a Kafka topic has none (404). */
    public Reply bridge(String bearer, String monitorId) {
        authorize(bearer, BRIDGES + "/" + monitorId);
        tables.catchUp(Topics.MONITORS);
        Monitor m = tables.monitor(monitorId);
        if (m == null) {
            throw ProtocolException.monitorNotFound().with("monitor", monitorId);
        }
        KafkaSource source = sourceOf(m);
        if (source == null) {
            throw ProtocolException.of(
                            ErrorCode.NOT_FOUND,
                            "monitor " + monitorId + " is not bridged: its source is not a Kafka topic")
                    .with("monitor", monitorId)
                    .with("bridged", false);
        }
        BridgeOffsets.Source read = bridgeOffsets
                .read(Map.of(m.id(), source.topic()), BRIDGES_TIMEOUT)
                .get(m.id());
        return Reply.of(200, bridge(m, source.topic(), read));
    }

    private static KafkaSource sourceOf(Monitor m) {
        try {
            return KafkaSource.of(m.source(), m.types() == null ? List.of() : m.types());
        } catch (RuntimeException e) {
            // Checked when it was stored; one that no longer parses is not bridged either (BridgeApp agrees).
            return null;
        }
    }

    private static ObjectNode bridge(Monitor m, String topic, BridgeOffsets.Source read) {
        ObjectNode b = Json.object();
        b.put("monitor", m.id());
        b.put("topic", topic);
        b.put("group", BridgeApp.GROUP_PREFIX + m.id());
        ObjectNode live = b.putObject("live");
        live.put("value", m.active());
        if (m.retired()) {
            live.put("reason", "retired");
        } else if (m.paused()) {
            live.put("reason", "paused");
        } else {
            live.putNull("reason");
        }
        ArrayNode partitions = Json.MAPPER.createArrayNode();
        ArrayNode unreadable = Json.MAPPER.createArrayNode();
        long lag = 0;
        long bridged = 0;
        long rejected = 0;
        long deadLettered = 0;
        boolean complete = read.missing() == null;
        if (read.missing() != null) {
            b.put("source", "missing");
            b.put("source_problem", read.missing());
        } else {
            b.put("source", "present");
        }
        for (BridgeOffsets.Partition p : read.partitions()) {
            ObjectNode n = partitions.addObject();
            n.put("partition", p.partition());
            putLong(n, "end", p.end());
            putLong(n, "committed", p.committed());
            Long partitionLag = p.end() != null && p.committed() != null ? Math.max(0, p.end() - p.committed()) : null;
            putLong(n, "lag", partitionLag);
            BridgeCounts counts = p.counts();
            putLong(n, "bridged", counts == null ? null : counts.bridged());
            putLong(n, "rejected", counts == null ? null : counts.rejected());
            putLong(n, "dead_lettered", counts == null ? null : counts.deadLettered());
            if (partitionLag != null) {
                lag += partitionLag;
            }
            if (counts != null) {
                bridged += counts.bridged();
                rejected += counts.rejected();
                deadLettered += counts.deadLettered();
            }
            if (p.problem() != null) {
                complete = false;
                unreadable.addObject().put("partition", p.partition()).put("reason", p.problem());
            }
        }
        b.put("lag", lag);
        b.put("bridged", bridged);
        b.put("rejected", rejected);
        b.put("dead_lettered", deadLettered);
        b.put("complete", complete);
        b.set("partitions", partitions);
        b.set("unreadable", unreadable);
        return b;
    }

    private static void putLong(ObjectNode n, String field, Long value) {
        if (value == null) {
            n.putNull(field);
        } else {
            n.put(field, value);
        }
    }

    /** Drops every observation with {@code seq <= upto_seq} of one monitor, or of all when none is named. */
    public Reply compact(String bearer, Compact request) {
        authorize(bearer, COMPACT);
        long upto = request.uptoSeq();
        String only = request.monitor();
        List<String> ids;
        if (only != null) {
            if (tables.monitor(only) == null) {
                throw ProtocolException.monitorNotFound().with("monitor", only);
            }
            ids = List.of(only);
        } else {
            ids = tables.monitors().stream().map(Monitor::id).sorted().toList();
        }
        Map<String, Log.Bounds> before = log.bounds(ids);
        Map<String, Long> deletions = new HashMap<>();
        for (String id : ids) {
            Log.Bounds b = before.get(id);
            long beforeOffset = Math.min(upto, b.end());
            if (beforeOffset >= Seq.offsetOf(b.floor()) + 1) {
                deletions.put(id, beforeOffset);
            }
        }
        logAdmin.deleteBefore(deletions);
        Map<String, Log.Bounds> after = log.bounds(ids);
        ObjectNode reply = Json.object();
        ObjectNode perMonitor = Json.object();
        long compacted = 0;
        for (String id : ids) {
            // Monitor logs carry no transaction markers, so offsets removed are observations removed.
            long removed = after.get(id).floor() - before.get(id).floor();
            compacted += removed;
            ObjectNode m = perMonitor.putObject(id);
            m.put("compacted", removed);
            m.put("retention_floor", after.get(id).floor());
        }
        reply.put("compacted", compacted);
        if (only != null) {
            reply.put("retention_floor", after.get(only).floor());
        }
        reply.set("monitors", perMonitor);
        return Reply.of(200, reply);
    }
}
