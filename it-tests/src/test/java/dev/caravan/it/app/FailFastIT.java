package dev.caravan.it.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.app.GatewayMain;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.it.GatewayHarness;

/**
 * {@code ./caravan run} that cannot serve exits non-zero at once with one line naming the cause, and never says it is
 * listening; the camel-main start path behind it throws for the same reasons (a port taken between the quick check and
 * the bind, a route that does not start). {@code EmbeddingIT} covers {@code install} + {@code start}.
 */
class FailFastIT {

    @TempDir
    Path dir;

    private static ServerSocket takePort() throws IOException {
        return new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    }

    @Test
    void caravanRunOnATakenPortExitsNonZeroWithinTenSecondsWithOneClearLine() throws Exception {
        try (ServerSocket taken = takePort()) {
            Path output = dir.resolve("run.out");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            long start = System.nanoTime();
            Process run = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "dev.caravan.app.CaravanCli", "run", "--host", "127.0.0.1", "--prometheus-port", "-1", "--port",
                    Integer.toString(taken.getLocalPort()))
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            boolean exited = run.waitFor(10, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (!exited) {
                run.destroyForcibly().waitFor();
            }
            List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
            System.out.println("caravan run on a taken port: exit " + (exited ? run.exitValue() : "none") + " after "
                    + ms + " ms: " + lines);

            assertThat(exited).as("exited within 10 s").isTrue();
            assertThat(run.exitValue()).isEqualTo(1);
            assertThat(lines).containsOnlyOnce("caravan run: Caravan gateway cannot listen on 127.0.0.1:"
                    + taken.getLocalPort() + ": Address already in use");
            assertThat(String.join("\n", lines)).doesNotContain("listening on").doesNotContain("started on");
        }
    }

    @Test
    void caravanRunWithASyncMemberOnEveryInterfaceAndNoSecretExitsWithOneClearLine() throws Exception {
        Path output = dir.resolve("sync.out");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process run = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "dev.caravan.app.CaravanCli", "run", "--host", "127.0.0.1", "--port", "0", "--prometheus-port", "-1",
                "--sync", "hazelcast", "--sync-host", "0.0.0.0", "--sync-members", "127.0.0.1:5701")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean exited = run.waitFor(30, TimeUnit.SECONDS);
        if (!exited) {
            run.destroyForcibly().waitFor();
        }
        List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);

        assertThat(exited).as("exited within 30 s").isTrue();
        assertThat(run.exitValue()).isEqualTo(2);
        assertThat(lines).containsOnlyOnce("caravan run: --sync hazelcast binds --sync-host 0.0.0.0 without "
                + "--sync-secret, so anyone who reaches the sync port can confirm a guessed prompt: set --sync-secret "
                + "on every replica, a loopback --sync-host, or --sync-allow-no-secret");
        assertThat(String.join("\n", lines)).doesNotContain("listening on").doesNotContain("joined cluster");
    }

    @Test
    void thePortTakenAfterTheQuickCheckStillFailsTheStart() throws Exception {
        try (ServerSocket taken = takePort()) {
            Main main = GatewayMain.create(GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1")
                    .with(CoreFlags.PORT, Integer.toString(taken.getLocalPort()))
                    .with(MetricsFeature.PROMETHEUS_PORT, "-1"), Map.of());

            assertThatThrownBy(main::run).satisfies(e -> assertThat(GatewayMain.startFailureLine(e))
                    .isEqualTo("Caravan gateway cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + ": Address already in use"));
            assertThat(main.getCamelContext().isStarted()).isFalse();
            main.completed();
        }
    }

    @Test
    void aRouteThatCannotStartFailsTheStartWithItsCause() throws Exception {
        Files.writeString(dir.resolve("broken.camel.yaml"), """
                - route:
                    id: broken
                    from:
                      uri: caravan-http:/broken
                      steps:
                        - process:
                            ref: noSuchProcessor
                """, StandardCharsets.UTF_8);
        Main main = GatewayMain.create(GatewayHarness.config(List.of()).with(CoreFlags.ROUTES, dir.toString()),
                Map.of());

        assertThatThrownBy(main::run).satisfies(e -> assertThat(GatewayMain.startFailureLine(e))
                .startsWith("cannot start: ").contains("noSuchProcessor"));
        assertThat(main.getCamelContext().isStarted()).isFalse();
        main.completed();
    }
}
