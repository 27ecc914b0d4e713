package io.monitorbackbone.broker;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one SCRAM-SHA-512 user of the embedded broker: generated at first start with a random password, kept in
 * {@code <data>/kafka-client.properties} (mode 600, the data directory 700) as exactly the client properties a stock
 * Kafka tool needs ({@code --command-config}, {@code --consumer.config}), and read back on every later start.
 * {@link #toString()} never shows the password.
 */
public record ClientCredentials(String username, String password) {

    /** The file under the data directory. */
    public static final String FILE = "kafka-client.properties";

    public static final String MECHANISM = "SCRAM-SHA-512";
    public static final String SECURITY_PROTOCOL = "SASL_PLAINTEXT";
    public static final String USERNAME = "mp";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_-]+");
    private static final Pattern JAAS =
            Pattern.compile("username=\"([A-Za-z0-9_-]+)\"\\s+password=\"([A-Za-z0-9_-]+)\"");
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");

    public ClientCredentials {
        // Only characters that need no quoting in a JAAS line, a Formatter argument or a properties file.
        if (username == null
                || !SAFE.matcher(username).matches()
                || password == null
                || !SAFE.matcher(password).matches()) {
            throw new IllegalArgumentException("a broker user name and password are non-empty [A-Za-z0-9_-]");
        }
    }

    /** A new user {@value #USERNAME} with 256 random bits of password. */
    public static ClientCredentials generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return new ClientCredentials(
                USERNAME, Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    /** The credentials kept in {@code dataDir}, or null when it holds none. */
    public static ClientCredentials read(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        if (!Files.exists(file)) {
            return null;
        }
        try {
            java.util.Properties p = new java.util.Properties();
            try (var in = Files.newBufferedReader(file, UTF_8)) {
                p.load(in);
            }
            Matcher m = JAAS.matcher(p.getProperty("sasl.jaas.config", ""));
            if (!m.find()) {
                throw new IllegalStateException(
                        file + " holds no broker user (sasl.jaas.config); delete it to make a new one");
            }
            return new ClientCredentials(m.group(1), m.group(2));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the broker credentials " + file, e);
        }
    }

    /** The client properties that connect to {@code bootstrapServers} as this user. */
    public Map<String, String> clientProperties(String bootstrapServers) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("bootstrap.servers", bootstrapServers);
        p.putAll(securityProperties());
        return p;
    }

    /** The client properties that authenticate as this user, without the cluster. */
    public Map<String, String> securityProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("security.protocol", SECURITY_PROTOCOL);
        p.put("sasl.mechanism", MECHANISM);
        p.put("sasl.jaas.config", jaas("org.apache.kafka.common.security.scram.ScramLoginModule"));
        return p;
    }

    String jaas(String loginModule) {
        return loginModule + " required username=\"" + username + "\" password=\"" + password + "\";";
    }

    /**
     * Writes {@link #clientProperties} to {@code dataDir/}{@value #FILE}, readable by its owner only, replacing what was
     * there in one step, and makes {@code dataDir} the owner's only (it holds the broker's logs and this file).
     */
    public Path write(Path dataDir, String bootstrapServers) {
        Path file = dataDir.resolve(FILE);
        try {
            Files.createDirectories(dataDir);
            boolean posix =
                    FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
            if (posix) {
                Files.setPosixFilePermissions(dataDir, OWNER_DIR);
            }
            StringBuilder text = new StringBuilder(
                    "# The embedded Kafka broker's client settings, written by the server at every start.\n"
                            + "# Readable by its owner only: it holds the broker's password. `mp kafka-config` prints it.\n");
            clientProperties(bootstrapServers)
                    .forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
            Path tmp = dataDir.resolve(FILE + ".tmp");
            Files.deleteIfExists(tmp);
            if (posix) {
                // Created with the owner's permissions only, so the password is never readable by others, not even
                // briefly.
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_FILE));
            } else {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, text, UTF_8);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the broker credentials " + file, e);
        }
    }

    @Override
    public String toString() {
        return "ClientCredentials[username=" + username + ", password=(hidden)]";
    }
}
