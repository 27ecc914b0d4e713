package io.monitorbackbone.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The servers a run uses, started when first needed and all stopped at the end: the main one (or {@code --base}), a
 * second gateway on the main one's broker, a fresh one for the large log of scenario 6, and a fresh pair for memory.
 * A quick run, a smoke test of the harness, starts none of the fresh ones: scenarios 6, 7 and 9 use the main server
 * (and 7 the second gateway), which saves four of its six starts; its figures say so ({@code reused_servers}).
 */
final class Servers implements AutoCloseable {
    private final Path jar;
    private final List<String> jvmOptions;
    private final URI base;
    private final String kafka;
    private final List<Target> started = new ArrayList<>();
    private Target main;
    private Target second;

    /** An all-in-one JVM and a gateway using its broker; borrowed ones belong to the run and outlive the pair. */
    record Pair(Target allInOne, Target gateway, boolean borrowed) implements AutoCloseable {
        void fullGc() {
            for (Target t : List.of(allInOne, gateway)) {
                String jcmd =
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
                try {
                    new ProcessBuilder(jcmd, String.valueOf(t.pid()), "GC.run")
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .start()
                            .waitFor();
                } catch (IOException e) {
                    throw new BenchError("cannot run jcmd", e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new BenchError("interrupted", e);
                }
            }
        }

        @Override
        public void close() {
            if (!borrowed) {
                gateway.close();
                allInOne.close();
            }
        }
    }

    private final boolean reuse;

    /**
     * @param base null to start servers from {@code jar}
     * @param reuse a quick run: the main server (and the second gateway) instead of fresh ones
     */
    Servers(Path jar, List<String> jvmOptions, URI base, String kafka, boolean reuse) {
        this.reuse = reuse;
        this.jar = jar;
        this.jvmOptions = jvmOptions;
        this.base = base;
        this.kafka = kafka;
    }

    boolean external() {
        return base != null;
    }

    synchronized Target main() {
        if (main == null) {
            main = base != null ? Target.external(base, kafka) : start(null);
        }
        return main;
    }

    /** A second gateway on the main server's broker; null when that broker is not known. */
    synchronized Target second() {
        if (second == null && main().kafka != null) {
            second = start(main());
            // The leases service's tasks spread over both gateways: its group rebalances once the second one joins.
            Scenarios.sleep(5_000);
        }
        return second;
    }

    /** A fresh server, so the large log does not slow what runs after it; the main one with {@code --base}. */
    Target flat() {
        return base != null || reuse ? main() : start(null);
    }

    /** A fresh server this run starts, for a scenario that reads its /proc; null with {@code --base}. */
    Target fresh() {
        return base != null ? null : reuse ? main() : start(null);
    }

    /** True when scenarios 6, 7 and 9 run on the main server instead of fresh ones (a quick run). */
    boolean reused() {
        return reuse && base == null;
    }

    /** Null with {@code --base}: memory is read from /proc of processes this run started. */
    Pair memoryPair() {
        if (base != null) {
            return null;
        }
        if (reuse) {
            return new Pair(main(), second(), true);
        }
        Target allInOne = start(null);
        return new Pair(allInOne, start(allInOne), false);
    }

    /**
     * A gateway alone ({@code MP_ROLES=gateway}) on the main server's broker, as a cluster's gateways run: the main
     * server keeps the broker, the projector and the leases service. Null when that broker is not known.
     */
    Target gatewayOnly() {
        if (base != null || main().kafka == null) {
            return null;
        }
        return start(main(), Map.of("MP_ROLES", "gateway"));
    }

    /** A server with all roles on {@code broker} (see {@link Target#broker}) instead of an embedded one. */
    Target onBroker(Target broker) {
        return start(broker);
    }

    List<String> jvmOptions() {
        return jvmOptions;
    }

    private Target start(Target shared) {
        return start(shared, Map.of());
    }

    private Target start(Target shared, Map<String, String> env) {
        Target t = Target.start(jar, jvmOptions, shared, env);
        synchronized (started) {
            started.add(t);
        }
        return t;
    }

    private boolean keepSecond;

    /**
     * While kept, {@link #stop} leaves the second gateway running: a quick run keeps scenario 5's for scenario 13, which
     * saves a start.
     */
    synchronized void keepSecond(boolean keep) {
        keepSecond = keep;
    }

    /** Stops a server started for one scenario as soon as that scenario is done. */
    synchronized void stop(Target t) {
        if (t == second && keepSecond) {
            return;
        }
        if (t != main && t.started()) {
            t.close();
            if (t == second) {
                second = null;
            }
        }
    }

    @Override
    public void close() {
        synchronized (started) {
            // Gateways on a broker first, then the broker's own JVM.
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).close();
                } catch (RuntimeException e) {
                    // stopping the rest anyway
                }
            }
        }
    }
}
