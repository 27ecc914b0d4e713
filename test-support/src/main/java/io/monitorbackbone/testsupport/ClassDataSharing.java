package io.monitorbackbone.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;

/**
 * A dynamic class-data-sharing archive for the servers the tests start: a server maps the JDK's and the launcher's
 * classes from the archive instead of loading and verifying them, which cut the CPU of a start to ready by about a
 * quarter on the 2-core machine (8.1 → 6.1 CPU-s), and the suite starts well over a hundred servers.
 *
 * <p>There is no build step: the first server a build starts with a given jar and JVM options (whichever test JVM gets
 * the lock first) runs with {@code -XX:+RecordDynamicDumpInfo}, and once it is ready the JDK's {@code jcmd} has it write
 * the archive ({@code VM.cds dynamic_dump}) while it goes on serving; every later server maps it. A server that dies
 * before it is ready writes nothing, and a later start tries again. The archive's name holds the jar's size and time,
 * the JDK and the options, so a rebuilt jar never meets an old archive; and a JVM that cannot map an archive starts
 * without one ({@code -Xshare:auto}, the default), so the archive can only make a start cheaper, never make it fail.
 * {@code -Dmp.test.cds=false} turns it off.
 */
final class ClassDataSharing {
    private static final boolean ENABLED = !"false".equals(System.getProperty("mp.test.cds"));
    /** JVM logging of the archive off: a test reads the server's log. */
    private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");

    /** The lock of the archive a server of this JVM is about to write, if any; one at a time per JVM. */
    private static FileLock writing;

    private ClassDataSharing() {}

    /** What a start adds to its JVM options, what to do once it is ready, and once its process has ended. */
    record Plan(List<String> options, java.util.function.LongConsumer ready, Runnable ended) {
        static final Plan NONE = new Plan(List.of(), pid -> {}, () -> {});
    }

    static synchronized Plan plan(Path jar, List<String> jvmOptions) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!ENABLED || !Files.isExecutable(jcmd)) {
            return Plan.NONE;
        }
        try {
            Path archive = archive(jar, jvmOptions);
            if (Files.isRegularFile(archive) && Files.size(archive) > 0) {
                return new Plan(concat("-XX:SharedArchiveFile=" + archive), pid -> {}, () -> {});
            }
            if (writing != null) {
                return Plan.NONE;
            }
            FileChannel channel = FileChannel.open(
                    archive.resolveSibling(archive.getFileName() + ".lock"),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                // Another test JVM's server is writing it.
                channel.close();
                return Plan.NONE;
            }
            writing = lock;
            FileLock mine = lock;
            return new Plan(
                    concat("-XX:+RecordDynamicDumpInfo"), pid -> dump(jcmd, pid, archive, mine), () -> release(mine));
        } catch (IOException e) {
            // An archive is an optimization: without one, the server starts as it always did.
            return Plan.NONE;
        }
    }

    private static void dump(Path jcmd, long pid, Path archive, FileLock lock) {
        Path partial = archive.resolveSibling(archive.getFileName() + ".part-" + pid);
        try {
            Process p = new ProcessBuilder(
                            jcmd.toString(), Long.toString(pid), "VM.cds", "dynamic_dump", partial.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)
                    && p.exitValue() == 0
                    && Files.isRegularFile(partial)
                    && Files.size(partial) > 0) {
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
            } else {
                p.destroyForcibly();
            }
        } catch (IOException e) {
            // A later start tries again.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException e) {
                // Left for the build's clean.
            }
            release(lock);
        }
    }

    private static synchronized void release(FileLock lock) {
        if (writing != lock) {
            return;
        }
        try {
            writing.release();
            writing.channel().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            writing = null;
        }
    }

    private static Path archive(Path jar, List<String> jvmOptions) throws IOException {
        int key = Objects.hash(
                Files.size(jar),
                Files.getLastModifiedTime(jar).toMillis(),
                System.getProperty("java.home"),
                System.getProperty("java.vm.version"),
                jvmOptions);
        return jar.toAbsolutePath().resolveSibling("test-cds-" + Integer.toHexString(key) + ".jsa");
    }

    private static List<String> concat(String option) {
        return java.util.stream.Stream.concat(QUIET.stream(), java.util.stream.Stream.of(option))
                .toList();
    }
}
