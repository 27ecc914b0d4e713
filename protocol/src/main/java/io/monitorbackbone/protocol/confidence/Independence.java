package io.monitorbackbone.protocol.confidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.monitorbackbone.protocol.Vocabulary;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which actors the monitor's human owner declared independent of each other. Never inferred: the only source is the
 * latest {@code ai.mentu.monitor.configured} row, and only when the server recorded that row with origin
 * {@code human} (an attested monitor changed with its human owner's token). The declared list is
 * {@code source.settings.independent_actors} of the monitor after the change ({@code payload.after}). A later
 * configuration change that drops the list, or that was not made by the human owner, withdraws the declaration.
 *
 * @param declared the declared actors (at most {@link #MAX}, {@code system:} actors left out); null when none stands
 * @param seq      the seq of the configuration change that declared them; 0 when none stands
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Independence(List<String> declared, long seq) {
    public static final int MAX = 32;
    public static final String SETTING = "independent_actors";
    public static final Independence UNDECLARED = new Independence(null, 0);

    public Independence {
        declared = declared == null ? null : List.copyOf(declared);
    }

    public boolean hasDeclaration() {
        return declared != null;
    }

    public Set<String> declaredSet() {
        return declared == null ? Set.of() : Set.copyOf(declared);
    }

    public Independence apply(Row row) {
        if (!Vocabulary.CONFIGURED.equals(row.type())) {
            return this;
        }
        JsonNode list = row.data()
                .path("payload")
                .path("after")
                .path("source")
                .path("settings")
                .path(SETTING);
        if (!"human".equals(row.origin()) || !list.isArray()) {
            return hasDeclaration() ? UNDECLARED : this;
        }
        Set<String> names = new LinkedHashSet<>();
        for (JsonNode item : list) {
            if (item.isTextual() && !item.asText().startsWith("system:") && names.size() < MAX) {
                names.add(item.asText());
            }
        }
        return new Independence(new ArrayList<>(names), row.seq());
    }

    /**
     * Share of the tracked subjects whose current claim has at least two declared actors agreeing; null while nothing
     * is declared or no subject is tracked.
     */
    public Double value(Corroboration corroboration, Actors actors) {
        if (!hasDeclaration() || corroboration.subjects().isEmpty()) {
            return null;
        }
        Set<String> independent = declaredSet();
        long n = corroboration.subjects().stream()
                .filter(s -> s.independentlyCorroborated(actors, independent))
                .count();
        return (double) n / corroboration.subjects().size();
    }
}
