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
 * the lock first) runs with {@code -XX:ArchiveClassesAtExit}, and when it ends, having exited on its own, its archive
 * becomes the one every later server maps. A server killed with SIGKILL writes nothing, and a later start tries again.
 * The archive's name holds the jar's size and time, the JDK and the options, so a rebuilt jar never meets an old
 * archive; and a JVM that cannot map an archive starts without one ({@code -Xshare:auto}, the default), so the archive
 * can only make a start cheaper, never make it fail. {@code -Dmp.test.cds=false} turns it off.
 */
final class ClassDataSharing {
    private static final boolean ENABLED = !"false".equals(System.getProperty("mp.test.cds"));
    /** JVM logging of the archive off: a test reads the server's log. */
    private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");

    /** The lock of the archive being written by a server of this JVM, if any; one at a time per JVM. */
    private static FileLock writing;

    private ClassDataSharing() {}

    /** What a start adds to its JVM options, and what to do when that server's process has ended. */
    record Plan(List<String> options, Runnable onExit) {
        static final Plan NONE = new Plan(List.of(), () -> {});
    }

    static synchronized Plan plan(Path jar, List<String> jvmOptions) {
        if (!ENABLED) {
            return Plan.NONE;
        }
        try {
            Path archive = archive(jar, jvmOptions);
            if (Files.isRegularFile(archive) && Files.size(archive) > 0) {
                return new Plan(concat("-XX:SharedArchiveFile=" + archive), () -> {});
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
            Path partial = archive.resolveSibling(
                    archive.getFileName() + ".part-" + ProcessHandle.current().pid());
            Files.deleteIfExists(partial);
            return new Plan(concat("-XX:ArchiveClassesAtExit=" + partial), () -> finish(partial, archive));
        } catch (IOException e) {
            // An archive is an optimization: without one, the server starts as it always did.
            return Plan.NONE;
        }
    }

    private static synchronized void finish(Path partial, Path archive) {
        try {
            if (Files.isRegularFile(partial) && Files.size(partial) > 0) {
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.deleteIfExists(partial);
            }
        } catch (IOException e) {
            // A later start tries again.
        } finally {
            release();
        }
    }

    private static void release() {
        if (writing == null) {
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
