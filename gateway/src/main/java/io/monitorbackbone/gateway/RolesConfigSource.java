package io.monitorbackbone.gateway;

import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Binds no HTTP port in a process without the gateway role: {@code quarkus.http.host-enabled=false} when
 * {@code MP_ROLES} leaves the gateway out. Above application.properties, below the environment, so an operator's
 * {@code QUARKUS_HTTP_HOST_ENABLED} still decides. An unreadable {@code MP_ROLES} changes nothing here: the start
 * refuses it with its own line.
 */
public final class RolesConfigSource implements ConfigSource {
    static final String HOST_ENABLED = "quarkus.http.host-enabled";

    private final Map<String, String> properties;

    public RolesConfigSource() {
        this(System.getenv(Roles.VARIABLE));
    }

    RolesConfigSource(String roles) {
        this.properties = serves(roles) ? Map.of() : Map.of(HOST_ENABLED, "false");
    }

    /** Whether these roles (unset: all) include the gateway, or cannot be read. */
    static boolean serves(String roles) {
        if (roles == null || roles.isBlank()) {
            return true;
        }
        try {
            return Roles.parse(roles).has(Roles.Role.GATEWAY);
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public Set<String> getPropertyNames() {
        return properties.keySet();
    }

    @Override
    public String getValue(String name) {
        return properties.get(name);
    }

    @Override
    public String getName() {
        return "mp-roles";
    }

    @Override
    public int getOrdinal() {
        return 275;
    }
}
