package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Stands in for the packaged gateway in {@link ServerProcessIT}: it uses JDK classes only, so its one class file
 * makes a runnable jar. What it prints is the server log that ServerProcess captures.
 */
public final class FakeServer {

    public static void main(String[] args) throws IOException {
        String exitCode = System.getenv("FAKE_EXIT");
        if (exitCode != null) {
            System.out.println("failing on purpose");
            System.exit(Integer.parseInt(exitCode));
        }
        int port = Integer.parseInt(System.getenv("MP_PORT"));
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 0);
        server.createContext("/mp/v0/discover", exchange -> {
            byte[] body = ("{\"kafkaPort\":\"" + env("MP_KAFKA_PORT") + "\",\"data\":\"" + env("MP_DATA")
                            + "\",\"bootstrap\":\"" + env("KAFKA_BOOTSTRAP_SERVERS") + "\"}")
                    .getBytes(UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        // The gateway's management interface, whose liveness ServerProcess also waits for.
        int managementPort = Integer.parseInt(System.getenv("MP_MANAGEMENT_PORT"));
        HttpServer management =
                HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), managementPort), 0);
        management.createContext("/q/health/live", exchange -> {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        management.start();
        System.out.println("fake server up on " + port);
    }

    private static String env(String name) {
        return Objects.toString(System.getenv(name), "");
    }
}
