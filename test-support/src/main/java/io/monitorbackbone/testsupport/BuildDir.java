package io.monitorbackbone.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where tests leave files: the build directory of the module under test, so {@code mvn clean} removes them. */
final class BuildDir {

    private BuildDir() {}

    /** The directory itself ({@code mp.test.dir}, else {@code target}), not made if missing. */
    static Path root() {
        return Path.of(System.getProperty("mp.test.dir", "target")).toAbsolutePath();
    }

    static Path resolve(String child) {
        Path dir = root().resolve(child);
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }
}
