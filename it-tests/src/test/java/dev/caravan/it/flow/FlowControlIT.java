package dev.caravan.it.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.it.GatewayHarness;
import dev.caravan.it.RawHttpStream;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StreamRecorder;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.sim.Faults;

/**
 * Multi-tenant flow control on a real gateway and simulator over loopback: a tenant's rate limit and its 429 headers,
 * priority order in the queue, the trust rule of X-Caravan-Tenant, the tenants file's reload, and a client that hangs
 * up while queued (docs/configuration.md#tenants-and-flow-control).
 */
class FlowControlIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final String BODY = "{\"prompt\":\"whose turn is it\"}";
    private static final String TENANTS = """
            trustTenantHeader: %s
            classes:
              interactive: { priority: 0 }
              batch: { priority: 1 }
            tenants:
              capped: { apiKeys: [ "sk-capped" ], requestsPerMinute: %d }
              chat: { class: interactive, apiKeys: [ "sk-chat" ] }
              bulk: { class: batch, apiKeys: [ "sk-bulk" ] }
            """;

    @TempDir
    Path dir;

    private Path tenantsFile(boolean trusted, int cappedPerMinute, long mtimeSeconds) throws IOException {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, TENANTS.formatted(trusted, cappedPerMinute));
        Files.setLastModifiedTime(file, FileTime.fromMillis(mtimeSeconds * 1000));
        return file;
    }

    private static GatewayConfig config(Path tenants) {
        return GatewayHarness.config(SIMS.urls()).with(FlowFeature.TENANTS_FILE, tenants.toString())
                .with(FlowFeature.TENANTS_RELOAD_INTERVAL_SECS, "1");
    }

    private static double count(GatewayHarness gw, String name, String... tags) {
        Counter c = gw.gateway().beans().meterRegistry().find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aTenantOverItsRequestsPerMinuteGets429WithRetryAfterAndRateLimitHeaders() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(config(tenantsFile(false, 2, 1000)))) {
            String capped = "Bearer sk-capped";
            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", capped).statusCode())
                    .isEqualTo(200);
            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", capped).statusCode())
                    .isEqualTo(200);

            HttpResponse<String> third = gw.client().postJson("/v1/completions", BODY, "Authorization", capped);

            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).contains("\"code\":\"rate_limit_exceeded\"");
            assertThat(third.headers().firstValue("Retry-After")).hasValueSatisfying(v ->
                    assertThat(Long.parseLong(v)).isBetween(1L, 30L));
            assertThat(third.headers().firstValue("x-ratelimit-limit-requests")).hasValue("2");
            assertThat(third.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("0");
            assertThat(third.headers().firstValue("x-ratelimit-reset-requests")).hasValueSatisfying(v ->
                    assertThat(v).matches("(\\d+(\\.\\d+)?s|1m0s)"));
            assertThat(count(gw, "caravan.tenant.throttled", "tenant", "capped", "limit", "requests")).isEqualTo(1);
            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", "Bearer sk-chat").statusCode())
                    .as("another tenant's budget is its own").isEqualTo(200);
            assertThat(gw.client().postJson("/v1/completions", BODY).statusCode())
                    .as("unknown callers are 'other', unlimited here").isEqualTo(200);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "other", "class", "default")).isEqualTo(1);
        }
    }

    @Test
    void outputTokensAreSettledToTheStreamsUsageAndHoldTheTenantBack() throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, "tenants: { writer: { apiKeys: [ \"sk-writer\" ], outputTokensPerMinute: 5 } }");
        try (GatewayHarness gw = GatewayHarness.start(config(file))) {
            String stream = "{\"messages\":[{\"role\":\"user\",\"content\":\"go\"}],"
                    + "\"max_tokens\":8,\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
            HttpResponse<String> first = gw.client().postJson("/v1/chat/completions", stream,
                    "Authorization", "Bearer sk-writer");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).contains("\"completion_tokens\":8");
            // settled to usage when the exchange completes, which may be just after the client has the last byte
            var limiter = gw.gateway().beans().flow().limiter();
            await().atMost(Duration.ofSeconds(10)).until(() -> limiter.localUsage().containsKey("writer")
                    && limiter.localUsage().get("writer")[2] == 8);

            HttpResponse<String> second = gw.client().postJson("/v1/chat/completions", stream,
                    "Authorization", "Bearer sk-writer");

            // 8 tokens against 5 a minute: 3 in debt, refused until one token's worth is back (48 s)
            assertThat(second.statusCode()).isEqualTo(429);
            assertThat(second.headers().firstValue("x-ratelimit-limit-output-tokens")).hasValue("5");
            assertThat(second.headers().firstValue("x-ratelimit-remaining-output-tokens")).hasValue("0");
            assertThat(second.headers().firstValue("Retry-After")).hasValueSatisfying(v ->
                    assertThat(Long.parseLong(v)).isBetween(40L, 48L));
            assertThat(count(gw, "caravan.tenant.throttled", "tenant", "writer", "limit", "output_tokens"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aLongStreamIsChargedWhileItRunsSoTheNextRequestIsRefusedAndTheStreamItselfEndsWhole() throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, "tenants: { writer: { apiKeys: [ \"sk-writer\" ], outputTokensPerMinute: 50 } }");
        try (GatewayHarness gw = GatewayHarness.start(config(file));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            String stream = "{\"messages\":[{\"role\":\"user\",\"content\":\"go on\"}],"
                    + "\"max_tokens\":3000,\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
            StreamRecorder.Stream running = client.send(1, "/v1/chat/completions", stream,
                    "Authorization", "Bearer sk-writer").get(0);
            var limiter = gw.gateway().beans().flow().limiter();
            await().atMost(Duration.ofSeconds(10)).until(() -> limiter.localUsage().containsKey("writer")
                    && limiter.localUsage().get("writer")[2] > 50);
            assertThat(running.ended).as("still streaming").isFalse();
            assertThat(running.headReceived).isTrue();

            HttpResponse<String> next = gw.client().postJson("/v1/chat/completions", stream,
                    "Authorization", "Bearer sk-writer");

            assertThat(next.statusCode()).isEqualTo(429);
            assertThat(next.body()).contains("output tokens per minute");
            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();
            assertThat(running.status).isEqualTo(200);
            assertThat(running.sawDone).as("an admitted stream is not cut").isTrue();
            assertThat(running.body()).contains("\"completion_tokens\":3000");
            await().atMost(Duration.ofSeconds(10)).until(() -> limiter.localUsage().get("writer")[2] == 3000);
        }
    }

    @Test
    void everyResponseOfARateLimitedTenantCarriesTheRateLimitHeadersStreamedOrNot() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(config(tenantsFile(false, 5, 1000)))) {
            String capped = "Bearer sk-capped";
            HttpResponse<String> plain = gw.client().postJson("/v1/completions", BODY, "Authorization", capped);
            HttpResponse<String> streamed = gw.client().postJson("/v1/completions",
                    "{\"prompt\":\"stream it\",\"stream\":true}", "Authorization", capped);
            HttpResponse<String> unlimited = gw.client().postJson("/v1/completions", BODY,
                    "Authorization", "Bearer sk-chat");

            assertThat(plain.statusCode()).isEqualTo(200);
            assertThat(plain.headers().firstValue("x-ratelimit-limit-requests")).hasValue("5");
            assertThat(plain.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("4");
            assertThat(plain.headers().firstValue("x-ratelimit-reset-requests")).hasValueSatisfying(v ->
                    assertThat(v).matches("\\d+(\\.\\d+)?m?s"));
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.headers().firstValue("content-type")).hasValueSatisfying(v ->
                    assertThat(v).startsWith("text/event-stream"));
            assertThat(streamed.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("3");
            assertThat(unlimited.headers().map().keySet()).as("a tenant without limits has none to report")
                    .noneMatch(h -> h.startsWith("x-ratelimit"));
        }
    }

    @Test
    void queuedRequestsOfTheHigherPriorityClassGoFirst() throws Exception {
        // the first request holds the only slot long enough for four to queue behind it; they then run quickly
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 5000)));
        try (GatewayHarness gw = GatewayHarness.start(config(tenantsFile(false, 100, 1000))
                .with(FlowFeature.MAX_CONCURRENT_REQUESTS, "1").with(FlowFeature.QUEUE_SIZE, "10"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            AdmissionController admission = gw.gateway().beans().flow().admission();
            List<StreamRecorder.Stream> running = client.send(1, "/v1/completions", BODY, "Authorization", "Bearer sk-bulk");
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.slotsInUse() == 1);
            List<StreamRecorder.Stream> bulk = client.send(2, "/v1/completions", BODY, "Authorization", "Bearer sk-bulk");
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.queued() == 2);
            List<StreamRecorder.Stream> chat = client.send(2, "/v1/completions", BODY, "Authorization", "Bearer sk-chat");
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.queued() == 4);
            SIMS.resetFaults();

            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();

            assertThat(running.get(0).status).isEqualTo(200);
            assertThat(List.of(bulk.get(0), bulk.get(1), chat.get(0), chat.get(1)))
                    .allSatisfy(s -> assertThat(s.status).isEqualTo(200));
            long lastChat = Math.max(chat.get(0).endNanos, chat.get(1).endNanos);
            long firstBulk = Math.min(bulk.get(0).endNanos, bulk.get(1).endNanos);
            assertThat(lastChat).as("both interactive requests, queued last, ended before either batch one")
                    .isLessThan(firstBulk);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "chat", "class", "interactive")).isEqualTo(2);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "bulk", "class", "batch")).isEqualTo(3);
        } finally {
            SIMS.resetFaults();
        }
    }

    @Test
    void theTenantHeaderCountsOnlyWhenTheFileTrustsItAndAReloadChangesThatWithoutARestart() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(config(tenantsFile(false, 1, 1000)))) {
            String[] claimsChat = {"X-Caravan-Tenant", "chat"};
            assertThat(gw.client().postJson("/v1/completions", BODY, claimsChat).statusCode()).isEqualTo(200);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "other", "class", "default")).isEqualTo(1);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "chat", "class", "interactive")).isZero();

            tenantsFile(true, 1, 2000);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    count(gw, "caravan.tenants.reloads", "result", "ok") == 1);

            assertThat(gw.client().postJson("/v1/completions", BODY, claimsChat).statusCode()).isEqualTo(200);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "chat", "class", "interactive")).isEqualTo(1);
            assertThat(gw.client().postJson("/v1/completions", BODY, "X-Caravan-Tenant", "nobody").statusCode())
                    .isEqualTo(200);
            assertThat(count(gw, "caravan.tenant.admitted", "tenant", "other", "class", "default"))
                    .as("a header naming no tenant of the file is ignored").isEqualTo(2);
        }
    }

    @Test
    void aReloadRaisesALimitAndABadFileKeepsTheTenantsInForce() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(config(tenantsFile(false, 1, 1000)))) {
            String capped = "Bearer sk-capped";
            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", capped).statusCode())
                    .isEqualTo(200);
            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", capped).statusCode())
                    .isEqualTo(429);

            Path file = dir.resolve("tenants.yaml");
            Files.writeString(file, "tenants: { capped: { apiKeys: [ \"sk-capped\" ], requestsPerMinut: 100 } }");
            Files.setLastModifiedTime(file, FileTime.fromMillis(2_000_000));
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    count(gw, "caravan.tenants.reloads", "result", "failed") == 1);
            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", capped).statusCode())
                    .as("the tenants before stay in force").isEqualTo(429);

            tenantsFile(false, 100, 3000);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    count(gw, "caravan.tenants.reloads", "result", "ok") == 1);

            assertThat(gw.client().postJson("/v1/completions", BODY, "Authorization", capped).statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void aClientThatHangsUpWhileQueuedLeavesItsTenantsQueue() throws Exception {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 2000)));
        try (GatewayHarness gw = GatewayHarness.start(config(tenantsFile(false, 100, 1000))
                .with(FlowFeature.MAX_CONCURRENT_REQUESTS, "1").with(FlowFeature.QUEUE_SIZE, "5"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            AdmissionController admission = gw.gateway().beans().flow().admission();
            List<StreamRecorder.Stream> running = client.send(1, "/v1/completions", BODY, "Authorization", "Bearer sk-bulk");
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.slotsInUse() == 1);
            RawHttpStream queued = RawHttpStream.post(gw.port(), "/v1/completions", BODY, "Authorization", "Bearer sk-chat");
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.queued() == 1);

            queued.close();

            await().atMost(Duration.ofSeconds(10)).until(() -> admission.queued() == 0);
            assertThat(count(gw, "caravan.tenant.shed", "tenant", "chat", "reason", "client_gone")).isEqualTo(1);
            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();
            assertThat(running.get(0).status).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).until(() -> admission.inFlight() == 0);
            assertThat(admission.slotsInUse()).isZero();
        } finally {
            SIMS.resetFaults();
        }
    }
}
