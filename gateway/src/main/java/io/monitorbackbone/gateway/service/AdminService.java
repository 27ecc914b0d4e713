package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Seq;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.request.Compact;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    @Inject
    public AdminService(
            @ConfigProperty(name = "mp.admin-token") Optional<String> adminToken,
            LogAdmin logAdmin,
            Tables tables,
            Log log) {
        this.adminTokenHash = adminToken.map(Tokens::hash);
        this.logAdmin = logAdmin;
        this.tables = tables;
        this.log = log;
    }

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
