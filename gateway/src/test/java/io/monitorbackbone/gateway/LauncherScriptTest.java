package io.monitorbackbone.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code ./mp serve} builds the server when it has to: the real script, copied into an empty tree with a stub
 * {@code mvnw} (Maven's lines, as {@code -B} prints them) and a stub {@code java}, so no build runs and no server starts.
 */
class LauncherScriptTest {
    private static final Path MP =
            Path.of(System.getProperty("user.dir")).getParent().resolve("mp");

    @TempDir
    Path root;

    private Path jar;

    @BeforeEach
    void aTreeWithTheScriptAndStubs() throws IOException {
        Files.copy(MP, root.resolve("mp"));
        executable(root.resolve("mp"));
        jar = root.resolve("gateway/target/quarkus-app/quarkus-run.jar");
        Files.createDirectories(root.resolve("bin"));
        script(root.resolve("bin/java"), "echo \"java $*\"");
        Files.createDirectories(root.resolve("gateway/src/main/java"));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
    }

    private void stubMaven(int exit) throws IOException {
        script(root.resolve("mvnw"), """
                echo "$*" > mvnw.args
                echo "[INFO] Scanning for projects..."
                echo "Downloading from central: https://repo.maven.apache.org/maven2/a.pom"
                echo "Downloaded from central: https://repo.maven.apache.org/maven2/a.pom (2 kB at 9 kB/s)"
                echo "Downloading from central: https://repo.maven.apache.org/maven2/b.jar"
                echo "[INFO] Building monitor-backbone :: protocol 0.1.0-SNAPSHOT               [1/2]"
                echo "[INFO] --- compiler:3.13.0:compile (default-compile) @ protocol ---"
                echo "[INFO] Compiling 120 source files with javac [debug release 17] to target/classes"
                echo "[INFO] Building monitor-backbone :: gateway 0.1.0-SNAPSHOT                [2/2]"
                if [ %d -ne 0 ]; then echo "[ERROR] COMPILATION ERROR: Gateway.java:[3,1] ';' expected"; exit %d; fi
                mkdir -p gateway/target/quarkus-app && touch gateway/target/quarkus-app/quarkus-run.jar
                echo "[INFO] BUILD SUCCESS"
                """.formatted(exit, exit));
    }

    @Test
    void aFirstRunSaysItBuildsTheServerAndShowsOneLinePerModule() throws Exception {
        stubMaven(0);

        Run first = serve();

        assertThat(first.exit).as(first.stderr).isZero();
        assertThat(first.stderr)
                .contains("mp: building the server (first run, about 3 minutes; later runs skip this)")
                .contains("mp:   downloading Maven and the dependencies")
                .contains("mp:   [1/2] monitor-backbone :: protocol 0.1.0-SNAPSHOT")
                .contains("mp:   [2/2] monitor-backbone :: gateway 0.1.0-SNAPSHOT")
                .containsPattern("mp: built the server in [0-9]+m [0-9]+s")
                .doesNotContain("Compiling 120 source files", "Downloaded from", "BUILD SUCCESS");
        assertThat(first.stderr.lines().filter(l -> l.contains("downloading"))).hasSize(1);
        assertThat(first.stdout).as("stdout is the server's own").isEqualTo("java -Xmx512m -jar " + jar + "\n");
        assertThat(Files.readString(root.resolve("mvnw.args"))).contains("-pl gateway -am package");
    }

    @Test
    void aRunWithNothingToBuildSaysNothingAboutBuilding() throws Exception {
        stubMaven(0);
        serve();
        Files.delete(root.resolve("mvnw.args"));

        Run again = serve();

        assertThat(again.exit).isZero();
        assertThat(again.stderr).doesNotContain("build").startsWith("mp: serving ");
        assertThat(root.resolve("mvnw.args")).doesNotExist();
    }

    @Test
    void aChangedSourceSaysItRebuilds() throws Exception {
        stubMaven(0);
        serve();
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
        Files.writeString(root.resolve("gateway/src/main/java/Changed.java"), "class Changed {}");

        Run again = serve();

        assertThat(again.stderr).contains("mp: rebuilding the server (a main source or a POM changed");
    }

    @Test
    void aFailedBuildEndsWithTheEndOfMavensOutputAndStatusOne() throws Exception {
        stubMaven(1);

        Run failed = serve();

        assertThat(failed.exit).isEqualTo(1);
        assertThat(failed.stderr)
                .contains("mp: building the server failed; the end of Maven's output")
                .contains("[ERROR] COMPILATION ERROR")
                .doesNotContain("mp: serving");
        assertThat(failed.stdout).isEmpty();
    }

    private record Run(int exit, String stdout, String stderr) {}

    private Run serve() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(
                root.resolve("mp").toString(),
                "serve",
                "--data",
                root.resolve("data").toString());
        pb.environment().put("PATH", root.resolve("bin") + ":" + System.getenv("PATH"));
        pb.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        pb.environment().remove("MP_HEAP");
        pb.environment().remove("MP_JAVA_OPTS");
        pb.environment().put("TMPDIR", root.toString());
        pb.directory(root.toFile());
        Path out = root.resolve("stdout.txt");
        Path err = root.resolve("stderr.txt");
        pb.redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        assertThat(done).as("./mp serve with stubs ended within 120 s").isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static void script(Path path, String body) throws IOException {
        Files.writeString(path, "#!/usr/bin/env bash\n" + body + "\n");
        executable(path);
    }

    private static void executable(Path path) throws IOException {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
