package io.monitorbackbone.cli;

import io.monitorbackbone.testsupport.Http;
import io.monitorbackbone.testsupport.ServerProcess;
import io.monitorbackbone.testsupport.TestKafka;

/** One packaged gateway per test JVM, on the JVM's one test broker; stopped when the JVM exits. */
final class CliServer {
    static final String ADMIN_TOKEN = "admin-" + Long.toHexString(System.nanoTime());
    private static ServerProcess server;

    private CliServer() {}

    static synchronized Http http() {
        if (server == null) {
            server = ServerProcess.builder()
                    .env("KAFKA_BOOTSTRAP_SERVERS", TestKafka.bootstrapServers())
                    .env("MP_ADMIN_TOKEN", ADMIN_TOKEN)
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "cli-server-stop"));
        }
        return new Http(server.baseUri());
    }
}
