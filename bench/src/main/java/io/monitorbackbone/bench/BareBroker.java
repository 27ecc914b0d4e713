package io.monitorbackbone.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.monitorbackbone.broker.ClientCredentials;
import io.monitorbackbone.broker.EmbeddedKafka;
import io.monitorbackbone.testsupport.ServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The server's embedded broker alone, in a process of its own: the same broker settings (EmbeddedKafka, SCRAM on its
 * client listener) and the JVM options the bench gives the servers, with no client at all. Scenario 9 measures it
 * beside an idle server in the same run: the floor an all-in-one server cannot go under, as long as it carries its
 * broker.
 */
final class BareBroker implements AutoCloseable {
    private static final String READY = "bare broker ready";
    private final Process process;
    private final Path dir;

    private BareBroker(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    static BareBroker start(List<String> jvmOptions) {
        Path dir;
        try {
            // In the run's directory (where the servers keep their data): the run's clean-up removes it.
            dir = Files.createTempDirectory(
                    Path.of(System.getProperty("mp.test.dir", System.getProperty("java.io.tmpdir"))), "bare-broker-");
        } catch (IOException e) {
            throw new BenchError("cannot make a directory for the bare broker", e);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(BareBroker.class.getName());
        command.add(dir.resolve("kafka").toString());
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new BenchError("cannot start the bare broker", e);
        }
        BareBroker broker = new BareBroker(p, dir);
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8))) {
                        for (String line; (line = out.readLine()) != null; ) {
                            if (line.startsWith(READY)) {
                                ready.complete(null);
                            }
                        }
                    } catch (IOException e) {
                        // the process ended
                    }
                    ready.completeExceptionally(new BenchError("the bare broker ended before it was ready"));
                },
                "bare-broker-output");
        reader.setDaemon(true);
        reader.start();
        try {
            ready.get(3, TimeUnit.MINUTES);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            broker.close();
            throw new BenchError("the bare broker did not start: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            broker.close();
            throw new BenchError("interrupted", e);
        }
        return broker;
    }

    long pid() {
        return process.pid();
    }

    double cpuSeconds() {
        return Target.cpuSecondsOf(pid());
    }

    /**
     * The client properties that connect to this broker as its user, from the file the child writes there (owner-only,
     * as a server writes its embedded broker's): what a server given this broker ({@code KAFKA_BOOTSTRAP_SERVERS})
     * needs.
     */
    Map<String, String> clientProperties() {
        return ServerProcess.clientPropertiesIn(dir);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /**
     * The child: starts the broker on {@code args[0]} with a user of its own, writes that user's client properties
     * beside it, says so, and runs until it is stopped.
     */
    public static void main(String[] args) throws Exception {
        ClientCredentials user = ClientCredentials.generate();
        Path logDir = Path.of(args[0]);
        EmbeddedKafka kafka = EmbeddedKafka.start(logDir, 0, user, true);
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "bare-broker-stop"));
        user.write(logDir.getParent(), kafka.bootstrapServers());
        System.out.println(READY + " on " + kafka.bootstrapServers());
        System.out.flush();
        Thread.currentThread().join();
    }
}
