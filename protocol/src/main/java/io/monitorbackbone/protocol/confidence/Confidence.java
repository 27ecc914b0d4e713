package io.monitorbackbone.protocol.confidence;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The confidence block of a state, from the fold's parts. See docs/confidence.md for every definition; a change to
 * any of them, or to {@link #value}, is a new {@link #COMPUTED_BY}.
 */
public final class Confidence {
    public static final String COMPUTED_BY = "monitor-backbone/confidence-v1";
    /** Inputs every fold computes, whatever the log holds. */
    public static final List<String> ALWAYS = List.of("observations", "ages", "actors", "contradictions_open");

    public static final String CORROBORATION = "corroboration";
    public static final String TRACK_RECORD = "track_record";
    public static final String INDEPENDENCE = "independence";
    /** In the reference server's order, which is the order {@code missing} lists them in. */
    public static final List<String> COMPUTED = List.of(INDEPENDENCE, CORROBORATION, TRACK_RECORD);

    private Confidence() {}

    /**
     * @param values the computed inputs' values, only those present
     * @param value  null while any input is missing
     */
    public record Assessment(List<String> present, List<String> missing, Map<String, Double> values, Double value) {}

    public static Assessment assess(
            Double corroboration, Double trackRecord, Double independence, long contradictionsOpen) {
        Map<String, Double> values = new LinkedHashMap<>();
        put(values, CORROBORATION, corroboration);
        put(values, TRACK_RECORD, trackRecord);
        put(values, INDEPENDENCE, independence);
        List<String> present = new ArrayList<>(ALWAYS);
        present.addAll(values.keySet());
        List<String> missing =
                COMPUTED.stream().filter(i -> !values.containsKey(i)).toList();
        // From the served (rounded) inputs, so a reader can recompute the value from the state alone.
        Double value = missing.isEmpty()
                ? value(
                        values.get(CORROBORATION),
                        values.get(TRACK_RECORD),
                        values.get(INDEPENDENCE),
                        contradictionsOpen)
                : null;
        return new Assessment(List.copyOf(present), missing, values, value);
    }

    /**
     * {@code track_record × (corroboration + independence) / 2 × 1 / (1 + contradictions_open)}, rounded half-even to
     * four decimals. Each factor lies in [0, 1], so the value does too.
     */
    public static double value(double corroboration, double trackRecord, double independence, long contradictionsOpen) {
        double v = trackRecord * (corroboration + independence) / 2.0 / (1.0 + contradictionsOpen);
        return round(v);
    }

    static double round(double v) {
        return BigDecimal.valueOf(v).setScale(4, RoundingMode.HALF_EVEN).doubleValue();
    }

    private static void put(Map<String, Double> values, String name, Double v) {
        if (v != null) {
            values.put(name, round(v));
        }
    }
}
