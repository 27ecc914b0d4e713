package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.service.Work;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Where the services' blocking calls run: Quarkus's worker pool, the one the REST resources' blocking methods run on
 * too (sized by {@code quarkus.thread-pool.*}); the gateway keeps no pool of its own. Quarkus stops it.
 */
@ApplicationScoped
public class Workers implements Work {
    @Override
    public void execute(Runnable task) {
        Infrastructure.getDefaultWorkerPool().execute(task);
    }
}
