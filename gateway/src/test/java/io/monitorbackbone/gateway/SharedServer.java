package io.monitorbackbone.gateway;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;

/** One gateway process per test JVM, on the JVM's one test broker; stopped when the JVM exits. */
final class SharedServer {
    static final String ADMIN_TOKEN = "admin-" + Long.toHexString(System.nanoTime());
    private static ServerProcess server;

    private SharedServer() {}

    static synchronized Http http() {
        if (server == null) {
            server = ServerProcess.builder()
                    .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                    .env("MP_ADMIN_TOKEN", ADMIN_TOKEN)
                    // Small, so reads near the head come from memory and older ones from Kafka: both paths get tested.
                    .env("MP_TAIL_CACHE_ENTRIES", "8")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "shared-server-stop"));
        }
        return new Http(server.baseUri());
    }

    /** A monitor id no other test on the shared broker uses. */
    static String uniqueId(String prefix) {
        return prefix + "-" + Long.toHexString(System.nanoTime());
    }
}
