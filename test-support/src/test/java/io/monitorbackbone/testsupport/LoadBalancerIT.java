package io.monitorbackbone.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The HAProxy launcher against two stand-in gateways in this JVM (each an API port answering its own name and a
 * management port answering {@code /q/health/ready}): requests alternate between them, also on one kept-alive client
 * connection; a gateway whose readiness goes DOWN leaves the rotation and comes back when it is UP again; a gateway
 * whose port is closed while HAProxy still thinks it UP costs no request (the connection failure is redispatched).
 */
class LoadBalancerIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @Test
    void roundRobinFollowsReadinessAndRedispatchesARefusedConnection() {
        try (Fake a = new Fake("a");
                Fake b = new Fake("b");
                LoadBalancer lb = LoadBalancer.builder()
                        .backend(a.backend())
                        .backend(b.backend())
                        .start()) {
            lb.awaitUp("a", DEADLINE);
            lb.awaitUp("b", DEADLINE);
            Http http = new Http(lb.baseUri());
            List<String> served = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                served.add(http.get("/who", null).body());
            }
            assertThat(served)
                    .as("round-robin, not sticky")
                    .containsOnly("a", "b")
                    .contains("a", "b");
            assertThat(served.subList(0, 2)).containsExactlyInAnyOrder("a", "b");

            a.ready.set(false);
            lb.awaitDown("a", DEADLINE);
            for (int i = 0; i < 4; i++) {
                assertThat(http.get("/who", null).body()).isEqualTo("b");
            }
            a.ready.set(true);
            lb.awaitUp("a", DEADLINE);
            assertThat(List.of(
                            http.get("/who", null).body(),
                            http.get("/who", null).body()))
                    .containsExactlyInAnyOrder("a", "b");

            // The API port goes away while HAProxy still sends requests there: each is refused at connect, so never
            // sent, and HAProxy sends it to b instead.
            a.api.stop(0);
            for (int i = 0; i < 6; i++) {
                Http.Response r = http.get("/who", null);
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("b");
            }
            assertThat(lb.config())
                    .contains("balance roundrobin")
                    .contains("option httpchk GET /q/health/ready")
                    .contains("retry-on conn-failure")
                    .doesNotContain("cookie");
        }
    }

    /** A stand-in gateway: {@code /who} answers its name; its management port answers readiness. */
    private static final class Fake implements AutoCloseable {
        final String name;
        final AtomicBoolean ready = new AtomicBoolean(true);
        final HttpServer api;
        final HttpServer management;

        Fake(String name) {
            this.name = name;
            try {
                InetSocketAddress any = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0);
                api = HttpServer.create(any, 0);
                management = HttpServer.create(any, 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            api.createContext("/who", exchange -> {
                byte[] body = name.getBytes(UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            management.createContext("/q/health/ready", exchange -> {
                byte[] body = (ready.get() ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}").getBytes(UTF_8);
                exchange.sendResponseHeaders(ready.get() ? 200 : 503, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            api.start();
            management.start();
        }

        LoadBalancer.Backend backend() {
            return new LoadBalancer.Backend(
                    name, api.getAddress().getPort(), management.getAddress().getPort());
        }

        @Override
        public void close() {
            api.stop(0);
            management.stop(0);
        }
    }
}
