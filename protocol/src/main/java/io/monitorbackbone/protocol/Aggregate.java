package io.monitorbackbone.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * What a monitor's log adds up to, folded one observation at a time by {@link #apply}. Pure, so the same fold can run
 * wherever the log is read.
 *
 * @param actors up to two distinct non-system actors: enough to tell "one" from "more than one"
 */
public record Aggregate(long observations, long rejected, long acted, long lastSeq, String lastTime, String lastType,
                        String lastSourceContact, List<String> actors, long contradictionsOpen, boolean lacksProvenance) {

    public static final Aggregate EMPTY = new Aggregate(0, 0, 0, 0, null, null, null, List.of(), 0, false);

    public Aggregate apply(long seq, ObjectNode observation) {
        String type = Json.text(observation, "type");
        String time = Json.text(observation, "time");
        String actor = Json.text(observation, "actor");
        boolean protocolRow = type != null && type.startsWith(Vocabulary.PROTOCOL_TYPE_PREFIX);
        boolean completedLease = Vocabulary.LEASE.equals(type)
                && "complete".equals(observation.path("data").path("payload").path("action").asText());
        List<String> nextActors = actors;
        if (actor != null && !actor.startsWith("system:") && actors.size() < 2 && !actors.contains(actor)) {
            nextActors = new java.util.ArrayList<>(actors);
            nextActors.add(actor);
            nextActors = List.copyOf(nextActors);
        }
        long contradictions = contradictionsOpen;
        if (type != null && type.endsWith(".contradiction")) {
            contradictions++;
        } else if (type != null && type.endsWith(".contradiction_resolved")) {
            contradictions = Math.max(0, contradictions - 1);
        }
        boolean noProvenance = !observation.path("data").path("provenance").hasNonNull("origin");
        return new Aggregate(observations + 1,
                rejected + (Vocabulary.REJECTED.equals(type) ? 1 : 0),
                acted + (completedLease ? 1 : 0),
                seq, time, type,
                protocolRow ? lastSourceContact : time,
                nextActors, contradictions, lacksProvenance || noProvenance);
    }
}
