package io.monitorbackbone.gateway.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.monitorbackbone.protocol.Monitor;
import io.monitorbackbone.protocol.Subscription;
import io.monitorbackbone.protocol.lease.LeaseCommand;
import io.monitorbackbone.protocol.lease.LeaseReply;
import io.monitorbackbone.protocol.request.LeaseCall;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.UUID;

/**
 * {@code POST /subscriptions/{id}/leases/{action}}: the gateway authenticates and shapes the command; the leases
 * service, the single writer for every (monitor, subject), decides it.
 */
@ApplicationScoped
public class LeaseService {
    private final Tables tables;
    private final Log log;
    private final LeaseDecisions client;
    private final Access access;
    private final java.time.Clock clock;
    private Metrics metrics = Metrics.none();

    @Inject
    public LeaseService(Tables tables, Log log, LeaseDecisions client, java.time.Clock clock) {
        this.tables = tables;
        this.log = log;
        this.client = client;
        this.access = new Access(tables, log);
        this.clock = clock;
    }

    @Inject
    void metrics(Metrics metrics) {
        this.metrics = metrics;
    }

    public Reply act(String subscriptionId, String bearer, LeaseCall call) {
        long start = metrics.start();
        Subscription s = access.authorized(subscriptionId, bearer);
        Monitor monitor = access.monitorOf(s);
        LeaseCommand command = LeaseCommand.fromRequest(
                call,
                monitor,
                s,
                monitor.deliveryCountLimitOrDefault(),
                UUID.randomUUID().toString(),
                publishedLately(monitor.id(), call.subject()));
        LeaseReply reply = client.decide(command);
        if ("claim".equals(call.action())) {
            metrics.leaseClaimed(start, claimResult(reply));
        }
        ObjectNode answer = reply.body().deepCopy();
        if (reply.eventId() != null && answer.has("seq")) {
            answer.put("seq", seqOf(monitor.id(), reply.eventId(), reply.status()));
        }
        return new Reply(reply.status(), answer, Map.of());
    }

    /** {@code granted}, or the refusal's code in lower case: a small fixed set, fit for a label. */
    private static String claimResult(LeaseReply reply) {
        if (reply.status() / 100 == 2) {
            return "granted";
        }
        com.fasterxml.jackson.databind.JsonNode code = reply.body().path("code");
        return code.isTextual() ? code.asText().toLowerCase(java.util.Locale.ROOT) : "status_" + reply.status();
    }

    /**
     * Releases every lease these subscriptions hold on the monitor (a subscription or the monitor retired), each as
     * its holder, so the release is decided and logged like any other.
     */
    public void releaseHeldBy(Monitor monitor, java.util.Collection<Subscription> holders, String reason) {
        tables.catchUp(io.monitorbackbone.binding.Topics.LEASES);
        java.time.Instant now = clock.instant();
        for (io.monitorbackbone.protocol.lease.Lease lease :
                tables.leasesOf(monitor.id()).values()) {
            for (Subscription holder : holders) {
                if (lease.heldBy(io.monitorbackbone.protocol.lease.Lease.holderOf(holder.id()), now)) {
                    client.decide(LeaseCommand.fromRequest(
                            LeaseCall.release(lease.subject(), reason),
                            monitor,
                            holder,
                            monitor.deliveryCountLimitOrDefault(),
                            UUID.randomUUID().toString(),
                            true));
                }
            }
        }
    }

    /**
     * What this gateway's tail knows of the subject, after catching up with the log's head: it covers a claim that
     * races the leases service's own index of published subjects.
     */
    private boolean publishedLately(String monitorId, String subject) {
        Tables.Tail tail = tables.tail(monitorId);
        if (tail.publishedRecently(subject)) {
            return true;
        }
        log.bounds(monitorId); // returns once this tail has read up to the log's end
        return tail.publishedRecently(subject);
    }

    /** How long an answer waits for this gateway's tail to read the row its decision wrote. */
    static final java.time.Duration ROW_WAIT = java.time.Duration.ofSeconds(20);

    /**
     * The seq of the lease row the decision wrote, once this gateway's tail has read it. The reply and the row commit
     * in one transaction, but Kafka marks each partition committed on its own: the reply can be readable while the
     * row's partition still holds the transaction open (its last stable offset below the row). So the answer waits for
     * the tail, which reads committed records only, to see the row: the seq it carries then names the row, and a pull
     * from it (on any gateway) finds the row.
     */
    private Long seqOf(String monitorId, String eventId, int status) {
        Long seq = tables.tail(monitorId).awaitSeqOf(eventId, ROW_WAIT);
        if (seq == null) {
            throw io.monitorbackbone.protocol.ServerFault.withAdvice(
                    "the leases service decided this request (status " + status + ") but its row was not read in time",
                    "the decision stands; its row is in the monitor's log once Kafka commits it",
                    null);
        }
        return seq;
    }
}
