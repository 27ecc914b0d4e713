package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.service.PushSettings;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The push settings the services use, read from {@code MP_PUSH_*} ({@link GatewayConfig.Push}). */
@Singleton
public class PushConfig {
    @Produces
    @Singleton
    PushSettings pushSettings(GatewayConfig config) {
        GatewayConfig.Push push = config.push();
        return new PushSettings(
                push.allowHosts().orElse(List.of()).stream()
                        .map(String::trim)
                        .filter(h -> !h.isEmpty())
                        .map(h -> h.toLowerCase(Locale.ROOT))
                        .map(h -> h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h)
                        .collect(Collectors.toUnmodifiableSet()),
                push.retryBase(),
                push.retryMax(),
                push.timeout());
    }
}
