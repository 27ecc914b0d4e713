package io.monitorbackbone.gateway.service;

import io.monitorbackbone.protocol.ServerFault;
import io.monitorbackbone.gateway.kafka.Catalog;
import io.monitorbackbone.gateway.kafka.KafkaRuntime;
import io.monitorbackbone.gateway.kafka.LogReader;
import io.monitorbackbone.binding.Topics;
import io.monitorbackbone.protocol.ErrorCode;
import io.monitorbackbone.protocol.Json;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.ProtocolException;
import io.monitorbackbone.protocol.Seq;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.Tokens;
import io.monitorbackbone.protocol.request.Compact;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code /mp/v0/admin/*}: present only when an admin token is configured (otherwise those paths do not exist), and only
 * for that token. Compaction moves retention floors with Kafka's deleteRecords; the snapshot shows token hashes, never
 * tokens.
 */
public final class AdminService {
    private final Optional<String> adminTokenHash;
    private final KafkaRuntime kafka;
    private final Catalog catalog;
    private final LogReader reader;

    public AdminService(Optional<String> adminToken, KafkaRuntime kafka, Catalog catalog, LogReader reader) {
        this.adminTokenHash = adminToken.map(Tokens::hash);
        this.kafka = kafka;
        this.catalog = catalog;
        this.reader = reader;
    }

    private void authorize(String bearer, String path) {
        if (adminTokenHash.isEmpty()) {
            throw ProtocolException.unknownRoute(path);
        }
        if (!Tokens.matches(bearer, adminTokenHash.get())) {
            throw ProtocolException.of(ErrorCode.UNAUTHORIZED, "the admin endpoints require the admin token");
        }
    }

    public Reply snapshot(String bearer) {
        authorize(bearer, "GET /mp/v0/admin/snapshot");
        catalog.catchUp(Topics.MONITORS);
        catalog.catchUp(Topics.SUBSCRIPTIONS);
        catalog.catchUp(Topics.CURSORS);
        catalog.catchUp(Topics.LEASES);
        ObjectNode snapshot = Json.object();
        ArrayNode monitors = snapshot.putArray("monitors");
        catalog.monitors().stream().sorted(Comparator.comparing(Monitor::id)).forEach(m -> monitors.add(Json.MAPPER.valueToTree(m)));
        ArrayNode subscriptions = snapshot.putArray("subscriptions");
        ObjectNode cursors = snapshot.putObject("cursors");
        for (Monitor m : catalog.monitors()) {
            for (Subscription s : catalog.subscriptionsOf(m.id())) {
                subscriptions.add(Json.MAPPER.valueToTree(s));
                if (catalog.cursor(s.id()) != null) {
                    cursors.set(s.id(), Json.MAPPER.valueToTree(catalog.cursor(s.id())));
                }
            }
        }
        // What the leases service last wrote to mp.leases, as this gateway's view has read it.
        ArrayNode leases = snapshot.putArray("leases");
        catalog.monitors().stream().map(Monitor::id).sorted().forEach(id -> catalog.leasesOf(id).values().stream()
                .sorted(Comparator.comparing(io.monitorbackbone.protocol.lease.Lease::subject))
                .forEach(lease -> leases.add(lease.toJson().put("monitor", id))));
        return Reply.of(200, snapshot);
    }

    /** Drops every observation with {@code seq <= upto_seq} of one monitor, or of all when none is named. */
    public Reply compact(String bearer, Compact request) {
        authorize(bearer, "POST /mp/v0/admin/compact");
        long upto = request.uptoSeq();
        String only = request.monitor();
        List<String> ids;
        if (only != null) {
            if (catalog.monitor(only) == null) {
                throw ProtocolException.monitorNotFound().with("monitor", only);
            }
            ids = List.of(only);
        } else {
            ids = catalog.monitors().stream().map(Monitor::id).sorted().toList();
        }
        Map<String, LogReader.Bounds> before = reader.bounds(ids);
        Map<TopicPartition, RecordsToDelete> deletions = new HashMap<>();
        for (String id : ids) {
            LogReader.Bounds b = before.get(id);
            long beforeOffset = Math.min(upto, b.end());
            if (beforeOffset >= Seq.offsetOf(b.floor()) + 1) {
                deletions.put(new TopicPartition(Topics.obs(id), 0), RecordsToDelete.beforeOffset(beforeOffset));
            }
        }
        try {
            if (!deletions.isEmpty()) {
                kafka.admin().deleteRecords(deletions).all().get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ServerFault("interrupted while compacting", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new ServerFault("Kafka did not delete the records: " + e, e);
        }
        Map<String, LogReader.Bounds> after = reader.bounds(ids);
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
