package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.StubEngine;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * --api-key on inference routes, --admin-api-key on the admin API (every admin route, the legacy ones included), either
 * key on the gateway port's /metrics, a worker's own key sent upstream instead of the client's, and no key ever in logs
 * (the gateway's at DEBUG), metrics, GET /workers or the configuration's toString.
 */
class AuthIT {

    private static final String CLIENT_KEY = "sk-client-7f3a91";
    private static final String ADMIN_KEY = "sk-admin-91bc22";
    private static final String WORKER_KEY = "sk-worker-c0de55";

    @Test
    void keysGuardTheirRoutesTravelUpstreamAndNeverLeak() {
        List<String> received = new CopyOnWriteArrayList<>();
        List<String> logs = new CopyOnWriteArrayList<>();
        AbstractAppender capture = captureLogs(logs);
        try (StubEngine stub = StubEngine.start(req -> {
            received.add(req.path() + " " + req.getHeader("Authorization"));
            req.body().onSuccess(b -> req.response().putHeader("Content-Type", "application/json")
                    .end("{\"choices\":[{\"text\":\"ok\"}],\"usage\":{\"prompt_tokens\":1}}"));
        });
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                     .with(CoreFlags.API_KEY, CLIENT_KEY).with(CoreFlags.ADMIN_API_KEY, ADMIN_KEY)
                     .with(HealthFeature.HEALTH_CHECK_INTERVAL_SECS, "1"))) {
            GatewayClient c = gw.client();
            String worker = "{\"url\":\"" + stub.url() + "\",\"api_key\":\"" + WORKER_KEY + "\"}";

            assertThat(c.postJson("/workers", worker).statusCode()).as("no key").isEqualTo(401);
            assertThat(c.postJson("/workers", worker, "Authorization", "Bearer " + CLIENT_KEY).statusCode())
                    .as("the client key does not open the admin API").isEqualTo(401);
            assertThat(c.postJson("/workers", worker, "Authorization", "Bearer " + ADMIN_KEY).statusCode())
                    .isEqualTo(202);

            HttpResponse<String> anonymous = c.postJson("/v1/completions", "{\"prompt\":\"hi\"}");
            assertThat(anonymous.statusCode()).isEqualTo(401);
            assertThat(anonymous.body()).contains("\"code\":\"invalid_api_key\"");
            assertThat(c.postJson("/v1/completions", "{\"prompt\":\"hi\"}", "Authorization", "Bearer " + ADMIN_KEY)
                    .statusCode()).as("the admin key is not a client key").isEqualTo(401);
            HttpResponse<String> ok = c.postJson("/v1/completions", "{\"prompt\":\"hi\"}",
                    "Authorization", "bearer " + CLIENT_KEY);
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(received).contains("/v1/completions Bearer " + WORKER_KEY);
            assertThat(received).noneMatch(r -> r.contains(CLIENT_KEY));

            org.awaitility.Awaitility.await().until(() -> received.stream().anyMatch(r -> r.startsWith("/health")));
            assertThat(received).filteredOn(r -> r.startsWith("/health"))
                    .allMatch(r -> r.equals("/health Bearer " + WORKER_KEY));

            HttpResponse<String> list = c.get("/workers", "Authorization", "Bearer " + ADMIN_KEY);
            assertThat(list.statusCode()).isEqualTo(200);
            assertThat(c.get("/health").statusCode()).as("health stays open").isEqualTo(200);
            HttpResponse<String> scraped = c.get("/metrics", "Authorization", "Bearer " + ADMIN_KEY);
            assertThat(scraped.statusCode()).isEqualTo(200);
            String metrics = scraped.body();
            String config = gw.gateway().beans().config().toString();
            for (String key : List.of(CLIENT_KEY, ADMIN_KEY, WORKER_KEY)) {
                assertThat(list.body()).doesNotContain(key);
                assertThat(metrics).doesNotContain(key);
                assertThat(config).doesNotContain(key);
                assertThat(logs).as("log lines").noneMatch(l -> l.contains(key));
            }
            assertThat(logs).as("the capture saw the gateway's debug logging").anyMatch(l -> l.contains("Request "));
        } finally {
            release(capture);
        }
    }

    @Test
    void everyAdminRouteRequiresTheAdminKey() {
        try (StubEngine stub = StubEngine.start(req -> req.body().onSuccess(b -> req.response()
                .putHeader("Content-Type", "application/json").end("{\"num_reqs\":0}")));
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                     .with(CoreFlags.API_KEY, CLIENT_KEY).with(CoreFlags.ADMIN_API_KEY, ADMIN_KEY))) {
            GatewayClient c = gw.client();
            String add = "/add_worker?url=" + stub.url();
            String remove = "/remove_worker?url=" + stub.url();
            for (String[] key : new String[][] {{}, {"Authorization", "Bearer " + CLIENT_KEY}}) {
                String who = key.length == 0 ? "no key" : "the client key";
                assertUnauthorized(c.post(add, null, "", key), "POST /add_worker, " + who);
                assertUnauthorized(c.get("/list_workers", key), "GET /list_workers, " + who);
                assertUnauthorized(c.get("/get_loads", key), "GET /get_loads, " + who);
                assertUnauthorized(c.post("/flush_cache", null, "", key), "POST /flush_cache, " + who);
                assertUnauthorized(c.post(remove, null, "", key), "POST /remove_worker, " + who);
            }
            assertThat(gw.workers().all()).as("no refused call changed the fleet").isEmpty();

            String[] admin = {"Authorization", "Bearer " + ADMIN_KEY};
            assertThat(c.post(add, null, "", admin).statusCode()).as("POST /add_worker").isEqualTo(200);
            HttpResponse<String> list = c.get("/list_workers", admin);
            assertThat(list.statusCode()).as("GET /list_workers").isEqualTo(200);
            assertThat(list.body()).contains(stub.url());
            assertThat(c.get("/get_loads", admin).statusCode()).as("GET /get_loads").isEqualTo(200);
            assertThat(c.post("/flush_cache", null, "", admin).statusCode()).as("POST /flush_cache").isEqualTo(200);
            assertThat(c.post(remove, null, "", admin).statusCode()).as("POST /remove_worker").isEqualTo(200);
            assertThat(gw.workers().all()).isEmpty();
        }
    }

    @Test
    void metricsOnTheGatewayPortNeedTheAdminOrApiKeyAndTheMetricsListenerNeedsNone() {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(CoreFlags.API_KEY, CLIENT_KEY).with(CoreFlags.ADMIN_API_KEY, ADMIN_KEY))) {
            GatewayClient c = gw.client();
            assertUnauthorized(c.get("/metrics"), "GET /metrics, no key");
            assertUnauthorized(c.get("/metrics", "Authorization", "Bearer sk-wrong"), "GET /metrics, a wrong key");
            for (String key : List.of(CLIENT_KEY, ADMIN_KEY)) {
                HttpResponse<String> r = c.get("/metrics", "Authorization", "Bearer " + key);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).contains("caravan_requests_total{");
            }
            HttpResponse<String> listener = new GatewayClient("http://127.0.0.1:" + gw.gateway().metricsPort())
                    .get("/metrics");
            assertThat(listener.statusCode()).isEqualTo(200);
            assertThat(listener.body()).contains("caravan_requests_total{");
        }
    }

    @Test
    void portMetricsOffAnswers404EvenToAKeyWhileTheMetricsListenerServes() {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(CoreFlags.API_KEY, CLIENT_KEY).with(MetricsFeature.PORT_METRICS, "off"))) {
            HttpResponse<String> r = gw.client().get("/metrics", "Authorization", "Bearer " + CLIENT_KEY);
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(r.body()).contains("\"code\":\"not_found\"");
            assertThat(new GatewayClient("http://127.0.0.1:" + gw.gateway().metricsPort()).get("/metrics")
                    .statusCode()).isEqualTo(200);
        }
    }

    private static void assertUnauthorized(HttpResponse<String> r, String call) {
        assertThat(r.statusCode()).as(call).isEqualTo(401);
        assertThat(r.body()).as(call).contains("\"code\":\"invalid_api_key\"");
    }

    private static AbstractAppender captureLogs(List<String> lines) {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        AbstractAppender appender = new AbstractAppender("auth-it-capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLoggerName() + " " + event.getMessage().getFormattedMessage()
                        + (event.getThrown() == null ? "" : " " + event.getThrown()));
            }
        };
        appender.start();
        config.addAppender(appender);
        config.getRootLogger().addAppender(appender, Level.ALL, null);
        ctx.updateLoggers();
        Configurator.setRootLevel(Level.INFO);
        Configurator.setLevel("dev.caravan", Level.DEBUG);
        return appender;
    }

    private static void release(AbstractAppender appender) {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        ctx.getConfiguration().getRootLogger().removeAppender(appender.getName());
        Configurator.setRootLevel(Level.WARN);
        Configurator.setLevel("dev.caravan", Level.WARN);
        ctx.updateLoggers();
        appender.stop();
    }
}
