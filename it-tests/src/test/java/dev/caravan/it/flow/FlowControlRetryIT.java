package dev.caravan.it.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.sim.Faults;

/** A retried request is charged to its tenant once: one request, and the tokens of the answer the client got. */
class FlowControlRetryIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    @TempDir
    Path dir;

    @Test
    void retriesAreChargedOnceToTheTenant() throws Exception {
        Path file = dir.resolve("tenants.json");
        Files.writeString(file, "{\"tenants\":{\"acme\":{\"apiKeys\":[\"sk-acme\"],\"requestsPerMinute\":4}}}");
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", 503)));
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.POLICY_NAME, "round_robin").with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "100")
                .with(FlowFeature.TENANTS_FILE, file.toString()))) {
            long servedTokens = 0;
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = gw.client().postJson("/v1/completions",
                        "{\"prompt\":\"once only, request " + i + "\"}", "Authorization", "Bearer sk-acme");
                assertThat(r.statusCode()).as("request %d", i).isEqualTo(200);
                JsonNode usage = GatewayClient.parse(r.body()).get("usage");
                servedTokens += usage.get("prompt_tokens").asLong() + usage.get("completion_tokens").asLong();
            }
            double retries = gw.gateway().beans().meterRegistry().find("caravan.retries").tag("reason", "503")
                    .counter().count();
            // round robin's counter moves on the retry too, so every first attempt lands on the failing engine
            assertThat(retries).as("each request was retried once").isEqualTo(4);

            HttpResponse<String> fifth = gw.client().postJson("/v1/completions", "{\"prompt\":\"one more\"}",
                    "Authorization", "Bearer sk-acme");

            assertThat(fifth.statusCode()).as("four requests, four charged, whatever the attempts").isEqualTo(429);
            assertThat(gw.gateway().beans().flow().admission().served("acme"))
                    .as("fair share: the prompt and output tokens of the four answers, each once")
                    .isEqualTo(servedTokens);
        } finally {
            SIMS.resetFaults();
        }
    }
}
