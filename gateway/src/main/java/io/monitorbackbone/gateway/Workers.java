package io.monitorbackbone.gateway;

import io.monitorbackbone.gateway.service.Work;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** The worker pool every request's service call runs on (the services block on Kafka); stopped by {@link Lifecycle}. */
@ApplicationScoped
public class Workers implements Work {
    private static final int WORKERS = 32;

    private final AtomicInteger n = new AtomicInteger();
    private final ExecutorService pool = Executors.newFixedThreadPool(WORKERS, r -> {
        Thread t = new Thread(r, "mp-work-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @Override
    public void execute(Runnable task) {
        pool.execute(task);
    }

    void stop() {
        pool.shutdownNow();
    }
}
