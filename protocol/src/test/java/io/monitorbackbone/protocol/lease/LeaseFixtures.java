package io.monitorbackbone.protocol.lease;

import com.fasterxml.jackson.databind.JsonNode;
import io.monitorbackbone.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** Commands as a gateway would send them for monitor w-1 (horizon minute), with fresh request ids. */
final class LeaseFixtures {
    static final String MONITOR = "w-1";
    static final Instant T0 = Instant.parse("2026-11-29T18:09:17.598Z");
    private static final AtomicLong REQUESTS = new AtomicLong();

    private LeaseFixtures() {}

    static Cmd claim(String subscription) {
        return new Cmd(LeaseCommand.CLAIM, subscription, "build-1", null, null, null, null, null, true);
    }

    static Cmd renew(String subscription) {
        return claim(subscription).action(LeaseCommand.RENEW);
    }

    static Cmd complete(String subscription) {
        return claim(subscription).action(LeaseCommand.COMPLETE);
    }

    static Cmd release(String subscription) {
        return claim(subscription).action(LeaseCommand.RELEASE);
    }

    static Cmd reject(String subscription) {
        return claim(subscription).action(LeaseCommand.REJECT);
    }

    /** Compares as the wire sees it: a long 30 and an int 30 are the same JSON number. */
    static JsonNode wire(JsonNode node) {
        return Json.read(Json.bytes(node));
    }

    static JsonNode json(String text) {
        return Json.read(text.getBytes(StandardCharsets.UTF_8));
    }

    static String holder(String subscription) {
        return Lease.holderOf(subscription);
    }

    record Cmd(
            String action,
            String subscription,
            String subject,
            Long duration,
            String note,
            String outcome,
            JsonNode evidence,
            String reason,
            boolean published) {

        Cmd action(String a) {
            return new Cmd(a, subscription, subject, duration, note, outcome, evidence, reason, published);
        }

        Cmd subject(String s) {
            return new Cmd(action, subscription, s, duration, note, outcome, evidence, reason, published);
        }

        Cmd duration(long seconds) {
            return new Cmd(action, subscription, subject, seconds, note, outcome, evidence, reason, published);
        }

        Cmd note(String n) {
            return new Cmd(action, subscription, subject, duration, n, outcome, evidence, reason, published);
        }

        Cmd outcome(String o, JsonNode e) {
            return new Cmd(action, subscription, subject, duration, note, o, e, reason, published);
        }

        Cmd reason(String r) {
            return new Cmd(action, subscription, subject, duration, note, outcome, evidence, r, published);
        }

        Cmd unpublished() {
            return new Cmd(action, subscription, subject, duration, note, outcome, evidence, reason, false);
        }

        LeaseCommand build() {
            return build(MONITOR);
        }

        LeaseCommand build(String monitor) {
            return new LeaseCommand(
                    "req-" + REQUESTS.incrementAndGet(),
                    action,
                    monitor,
                    "minute",
                    false,
                    subject,
                    subscription,
                    "agent:" + subscription,
                    duration,
                    note,
                    outcome,
                    evidence,
                    reason,
                    LeaseCommand.DEFAULT_DELIVERY_COUNT_LIMIT,
                    published);
        }
    }
}
