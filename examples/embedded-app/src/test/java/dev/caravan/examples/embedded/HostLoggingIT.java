package dev.caravan.examples.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.slf4j.spi.SLF4JServiceProvider;

import dev.caravan.sim.SimFleet;

/**
 * The gateway leaves the application's logging alone: the example logs through slf4j-simple, its own choice, and a
 * run of it as its own process — start, a request through the gateway, SIGTERM — prints no SLF4J warning (no
 * "multiple SLF4J providers"), only slf4j-simple's lines (among them the gateway's notice that the application has
 * a server of its own), and nothing from Log4j; the class path holds no logging implementation or configuration
 * besides the application's.
 */
class HostLoggingIT {

    private static final Pattern READY = Pattern.compile("Embedded example ready: .* gateway on [^:]+:(\\d+)");

    @Test
    void theClassPathHoldsOnlyTheApplicationsLoggingBackendAndNoLoggingConfiguration() throws Exception {
        List<String> providers = ServiceLoader.load(SLF4JServiceProvider.class).stream()
                .map(p -> p.type().getName()).toList();
        assertThat(providers).containsExactly("org.slf4j.simple.SimpleServiceProvider");
        ClassLoader loader = getClass().getClassLoader();
        for (String config : List.of("log4j2.properties", "log4j2.xml", "log4j2-test.properties", "logback.xml",
                "application.properties")) {
            assertThat(Collections.list(loader.getResources(config))).as(config).isEmpty();
        }
        assertThatThrownBy(() -> Class.forName("org.apache.logging.log4j.core.LoggerContext"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void theApplicationRunsWithItsOwnLoggingAndNoSlf4jWarning() throws Exception {
        try (SimFleet fleet = Fleet.start()) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process app = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    EmbeddedApp.class.getName(), "--app-host", "127.0.0.1", "--app-port", "0",
                    "--host", "127.0.0.1", "--port", "0", "--prometheus-port", "-1", "--worker-urls", String.join(",", fleet.urls()))
                    .redirectErrorStream(true).start();
            List<String> output = new CopyOnWriteArrayList<>();
            Thread reader = new Thread(() -> readLines(app, output), "embedded-app-output");
            reader.start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> ready(output) != null || !app.isAlive());
                String port = ready(output);
                assertThat(port).as("ready line in %s", output).isNotNull();
                assertThat(new Http(Integer.parseInt(port)).postJson("/v1/chat/completions",
                        Fleet.chat(fleet, false, 2)).statusCode()).isEqualTo(200);
            } finally {
                // SIGTERM, through the handle: Process.destroy() would also close the output we still read
                app.toHandle().destroy(); // the application's shutdown hook stops the context
                assertThat(app.waitFor(60, TimeUnit.SECONDS)).isTrue();
                reader.join(10_000);
            }

            assertThat(output).noneMatch(l -> l.startsWith("SLF4J"));
            assertThat(output).noneMatch(l -> l.contains("StatusLogger") || l.contains("log4j"));
            assertThat(output).anyMatch(l -> l.matches("\\[main\\] INFO dev\\.caravan\\.components\\.http\\."
                    + "GatewayHttpServer - Caravan gateway listening on 127\\.0\\.0\\.1:\\d+ .*"));
            assertThat(output).as("the gateway says at start-up that the application has a server of its own")
                    .anyMatch(l -> l.matches("\\[main\\] INFO dev\\.caravan\\.gateway\\.HostServers - The application has "
                            + "its own platform-http server \\(127\\.0\\.0\\.1:\\d+\\) with 3 platform-http: route\\(s\\).*"
                            + "The gateway's endpoints are on its own server at 127\\.0\\.0\\.1:\\d+ \\(caravan-http: "
                            + "routes, event-loop dispatch, JSON errors, caravan_\\* metrics\\)"));
            assertThat(output).anyMatch(l -> l.contains("INFO org.apache.camel.impl.engine.AbstractCamelContext - "
                    + "Apache Camel") && l.contains("(embedded-app) shutdown"));
        }
    }

    private static String ready(List<String> output) {
        for (String line : output) {
            Matcher m = READY.matcher(line);
            if (m.find()) {
                return m.group(1);
            }
        }
        return null;
    }

    private static void readLines(Process process, List<String> into) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                into.add(line);
            }
        } catch (IOException e) {
            into.add("(output ended: " + e + ")");
        }
    }
}
