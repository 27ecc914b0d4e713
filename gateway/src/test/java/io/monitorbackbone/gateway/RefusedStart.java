package io.monitorbackbone.gateway;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.monitorbackbone.testsupport.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The packaged server run until it exits on its own, for tests of a start it must refuse: its status and output. */
record RefusedStart(int exit, String output) {
    /** Generous: a start that fails early still loads Quarkus, on a shared machine. */
    private static final Duration EXIT = Duration.ofSeconds(120);

    /** Runs the jar with a fresh data directory under {@code data}, free ports, and {@code env}. */
    static RefusedStart run(Path data, Map<String, String> env) throws Exception {
        Path log = Files.createTempFile("refused-start-", ".log");
        ProcessBuilder builder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-jar",
                        System.getProperty("mp.app.jar"))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment()
                .keySet()
                .removeIf(name -> name.startsWith("MP_") || name.equals("KAFKA_BOOTSTRAP_SERVERS"));
        builder.environment().put("MP_PORT", String.valueOf(FreePorts.next()));
        builder.environment().put("MP_KAFKA_PORT", String.valueOf(FreePorts.next()));
        builder.environment().put("MP_MANAGEMENT_PORT", String.valueOf(FreePorts.next()));
        builder.environment().put("MP_DATA", data.toString());
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            if (!process.waitFor(EXIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError(
                        "the server did not exit within " + EXIT + ":\n" + Files.readString(log, UTF_8));
            }
            return new RefusedStart(process.exitValue(), new String(Files.readAllBytes(log), UTF_8));
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(log);
        }
    }

    /** Refused with exit status 1 and this text, in a few lines without a stack trace, and never ready. */
    void assertRefusedWith(String... texts) {
        assertThat(exit).as(output).isEqualTo(1);
        assertThat(output).contains(texts).doesNotContain("monitor-backbone ready");
        assertThat(output).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(output.lines().filter(l -> !l.isBlank()).count()).as(output).isLessThanOrEqualTo(3);
    }
}
