package io.monitorbackbone.gateway;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What this process runs ({@code MP_ROLES}, docs/adr/0014-roles.md): the HTTP API ({@code gateway}), a projector
 * instance ({@code projector}), a leases instance ({@code leases}), the bridge of Kafka-sourced monitors
 * ({@code bridge}, docs/adr/0015-bridge.md); all four by default. A process without the gateway role binds no HTTP
 * port.
 */
public record Roles(Set<Role> set) {
    /** The variable, as the refusals name it. */
    public static final String VARIABLE = "MP_ROLES";

    public static final String ALL = "gateway,projector,leases,bridge";

    public enum Role {
        GATEWAY,
        PROJECTOR,
        LEASES,
        BRIDGE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Roles {
        if (set.isEmpty()) {
            throw new IllegalArgumentException(VARIABLE + " names no role; give some of " + ALL);
        }
        set = Set.copyOf(set);
    }

    /**
     * A comma list such as {@code projector,leases}; blanks around names are ignored, a name twice is one.
     *
     * @throws IllegalArgumentException naming the variable and the role, for an unknown role or an empty list
     */
    public static Roles parse(String value) {
        EnumSet<Role> roles = EnumSet.noneOf(Role.class);
        for (String part : (value == null ? "" : value).split(",", -1)) {
            String name = part.trim();
            if (name.isEmpty()) {
                continue;
            }
            Role role = List.of(Role.values()).stream()
                    .filter(r -> r.label().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(
                            VARIABLE + ": unknown role '" + name + "'; the roles are " + ALL));
            roles.add(role);
        }
        return new Roles(roles);
    }

    public boolean has(Role role) {
        return set.contains(role);
    }

    /** As {@code MP_ROLES} would name them, in a fixed order. */
    @Override
    public String toString() {
        return EnumSet.copyOf(set).stream().map(Role::label).collect(Collectors.joining(","));
    }
}
