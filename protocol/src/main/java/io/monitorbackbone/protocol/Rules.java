package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A monitor's mechanical rules: {@code when} is a filter over a published observation, {@code then} one of
 * {@code log annotate label escalate:<subscription> notify:human run:<ref>}. Evaluated in order on every accepted
 * publish, never on the reactions themselves; each reaction is an observation of type
 * {@code io.monitorbackbone.rule.<action>} whose provenance names {@code <id>@<version>}. Nothing is inferred and
 * {@code run:} is recorded, not executed.
 */
public final class Rules {
    public static final String ACTOR = "system:rules";
    public static final String TYPE_PREFIX = "io.monitorbackbone.rule.";
    public static final List<String> TYPES = List.of("log", "annotate", "label", "escalate", "notify", "run").stream()
            .map(a -> TYPE_PREFIX + a)
            .toList();

    private Rules() {}

    /** Checks a rules array and fills in what a served rule must carry ({@code when} defaults to match-all). */
    public static ArrayNode normalize(JsonNode rules) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        if (rules == null || rules.isNull()) {
            return out;
        }
        if (!rules.isArray()) {
            throw ProtocolException.of(ErrorCode.INVALID, "rules must be an array of {id, when, then}");
        }
        for (JsonNode rule : rules) {
            String then = Json.text(rule, "then");
            if (!rule.isObject()
                    || !rule.path("id").isTextual()
                    || then == null
                    || !Vocabulary.RULE_THEN.matcher(then).matches()) {
                throw ProtocolException.of(
                                ErrorCode.UNKNOWN_VOCABULARY,
                                "each rule needs an id and then: log | annotate | label | escalate:<subscription> | run:<ref> | notify:human")
                        .with("invalid", List.of("rules.then:" + then));
            }
            ObjectNode copy = ((ObjectNode) rule).deepCopy();
            JsonNode when = rule.get("when");
            if (when == null || when.isNull()) {
                copy.set("when", Json.object());
            } else {
                Filter.parse(when, null);
            }
            if (copy.has("version") && !copy.get("version").isTextual()) {
                copy.put("version", copy.get("version").asText());
            }
            out.add(copy);
        }
        return out;
    }

    /** The reactions one accepted observation causes, in the order of the monitor's rules. */
    public static List<Draft> reactions(Monitor monitor, Draft published, long seq, Instant now) {
        List<Draft> out = new ArrayList<>();
        // No rule, no reaction: the served form is built only to be matched (a monitor's rules are often an empty
        // array, and building it was most of what a publish of such a monitor spent here).
        if (monitor.rules() == null
                || !monitor.rules().isArray()
                || monitor.rules().isEmpty()) {
            return out;
        }
        ObjectNode served = published.served(monitor.id(), seq, false);
        for (JsonNode rule : monitor.rules()) {
            if (!Filter.parse(rule.get("when"), null).matches(served)) {
                continue;
            }
            String then = rule.get("then").asText();
            int colon = then.indexOf(':');
            String action = colon < 0 ? then : then.substring(0, colon);
            String target = colon < 0 ? null : then.substring(colon + 1);
            String ruleRef = rule.get("id").asText() + "@"
                    + (rule.hasNonNull("version") ? rule.get("version").asText() : Integer.toString(monitor.version()));
            ObjectNode payload = Json.object();
            payload.put("rule", ruleRef);
            payload.put("then", then);
            payload.put("target", target);
            payload.put("reason", Json.text(rule, "reason"));
            ObjectNode matched = payload.putObject("matched");
            matched.put("source", "monitor:" + monitor.id());
            matched.put("id", Long.toString(seq));
            matched.put("type", published.type());
            if (action.equals("run")) {
                payload.put("executed", false);
            }
            out.add(ProtocolRows.derived(
                    monitor, TYPE_PREFIX + action, ACTOR, published.subject(), payload, ruleRef, seq, now));
        }
        return out;
    }
}
