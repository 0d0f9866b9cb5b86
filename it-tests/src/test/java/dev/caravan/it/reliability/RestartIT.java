package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.config.CoreFlags;

/**
 * A gateway stopped and started again on the same port while clients keep sending chat requests to it: a request finds
 * nothing listening (connection refused or reset), is refused while the gateway drains (503 {@code shutting_down}), or
 * is served; the router's unknown-path answer (404 {@code not_found}) never answers a path the gateway serves, neither
 * while it starts (the server listens once every route is on its router) nor while it stops (the server closes after
 * the drain, before the routes stop).
 */
class RestartIT {

    private static final int RESTARTS = 5;
    private static final int CLIENTS = 3;
    private static final String BODY = GatewayClient.json(Map.of("max_tokens", 1, "messages",
            List.of(Map.of("role", "user", "content", "Are you there?"))));

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b);

    @Test
    void aRestartingGatewayNeverAnswersNotFoundOnAPathItServes() throws Exception {
        int port;
        try (GatewayHarness first = GatewayHarness.start(GatewayHarness.config(SIMS.urls()))) {
            port = first.port();
        }
        try (Hammer hammer = new Hammer(port)) {
            for (int i = 0; i < RESTARTS; i++) {
                long servedBefore = hammer.count(200);
                hammer.phase = "starting";
                try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                        .with(CoreFlags.PORT, Integer.toString(port)))) {
                    hammer.phase = "started";
                    await().atMost(Duration.ofSeconds(30)).until(() -> hammer.count(200) >= servedBefore + 20);
                    hammer.phase = "stopping";
                }
                hammer.phase = "stopped";
                long refusedBefore = hammer.unanswered.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> hammer.unanswered.get() > refusedBefore + 20);
            }
            assertThat(hammer.unexpected).as("answers other than 200 and 503").isEmpty();
        }
    }

    /** Clients sending one chat request after another; connection failures are counted, answers kept by status. */
    private static final class Hammer implements AutoCloseable {
        private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2)).build();
        private final HttpRequest request;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Map<Integer, AtomicLong> byStatus = new ConcurrentHashMap<>();
        private final AtomicLong unanswered = new AtomicLong();
        private final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
        private final List<Thread> threads;
        /** What the gateway is doing, as the test thread last said. */
        private volatile String phase = "stopped";

        Hammer(int port) {
            request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
            threads = IntStream.range(0, CLIENTS).mapToObj(i -> {
                Thread t = new Thread(this::run, "restart-client-" + i);
                t.setDaemon(true);
                t.start();
                return t;
            }).toList();
        }

        private void run() {
            while (running.get()) {
                try {
                    String sentWhile = phase;
                HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                    byStatus.computeIfAbsent(r.statusCode(), s -> new AtomicLong()).incrementAndGet();
                    if (r.statusCode() != 200 && r.statusCode() != 503) {
                        unexpected.add(r.statusCode() + " " + r.body() + " (sent while " + sentWhile + ")");
                    }
                } catch (IOException e) {
                    unanswered.incrementAndGet();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        long count(int status) {
            AtomicLong n = byStatus.get(status);
            return n == null ? 0 : n.get();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join(15_000);
            }
        }
    }
}
