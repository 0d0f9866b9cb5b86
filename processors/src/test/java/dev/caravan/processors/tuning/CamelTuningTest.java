package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Vertx;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.ProcessDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.util.CaseInsensitiveMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.processors.time.DelayScheduler;

class CamelTuningTest {

    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    private CaravanGateway start(boolean tuning) throws Exception {
        return CaravanGateway.install(camel, GatewayConfig.defaults()
                .with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, "0")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0").with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.CAMEL_TUNING, Boolean.toString(tuning)));
    }

    /** The ids of the inference route's top-level steps: a bean's name, or the fused run's {@code steps[...]}. */
    private List<String> inferenceSteps() {
        List<ProcessorDefinition<?>> steps = ((ModelCamelContext) camel).getRouteDefinition("inference").getOutputs();
        return steps.stream().filter(ProcessDefinition.class::isInstance).map(ProcessDefinition.class::cast)
                .map(p -> p.getRef() != null ? p.getRef() : String.valueOf(p.getProcessor())).toList();
    }

    @Test
    void withTheTuningOffEveryStepOfTheInferenceRouteIsACamelNodeOfItsOwn() throws Exception {
        start(false);
        camel.start();

        assertThat(inferenceSteps()).startsWith("traceRequest", "checkApiKey", "identifyTenant", "parseRequest")
                .contains("admitRequest");
        assertThat(inferenceSteps()).noneMatch(step -> step.startsWith("steps["));
    }

    @Test
    void withTheTuningOnTheInferenceRouteStartsWithOneFusedRun() throws Exception {
        start(true);
        camel.start();

        assertThat(inferenceSteps().get(0)).startsWith("steps[traceRequest, checkApiKey, identifyTenant,");
    }

    @Test
    void withTheTuningOffARequestExchangeCarriesPlatformHttpsOwnMessage() throws Exception {
        Message seen = probe(start(false));

        assertThat(seen.getClass()).isEqualTo(HttpMessage.class);
        assertThat(seen.getHeaders()).isInstanceOf(CaseInsensitiveMap.class);
        assertThat(seen.getHeader("X-PROBE")).isEqualTo("yes");
    }

    @Test
    void withTheTuningOnARequestExchangeHashesItsHeaders() throws Exception {
        Message seen = probe(start(true));

        assertThat(seen).isInstanceOf(RequestMessage.class);
        assertThat(seen.getHeaders()).isInstanceOf(HeaderMap.class);
        assertThat(seen.getHeader("X-PROBE")).isEqualTo("yes");
    }

    /**
     * Sends one request to a probe route on the gateway's server; returns a copy of the message the route saw (the
     * same class, a copy of its headers).
     */
    private Message probe(CaravanGateway gateway) throws Exception {
        AtomicReference<Message> seen = new AtomicReference<>();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("caravan-http:/probe?httpMethodRestrict=GET").routeId("probe")
                        .process(e -> seen.set(e.getIn().copy()))
                        .setBody(constant("ok"));
            }
        });
        camel.start();
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + gateway.port() + "/probe")).header("x-probe", "yes").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok");
        return seen.get();
    }

    @Test
    void aSizedPropertyMapStartsEmptyAndKeepsWhatIsPut() {
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty("before", "gone");

        PropertyCapacity.size(exchange);
        assertThat(exchange.getProperties()).isEmpty();
        for (int i = 0; i < 40; i++) {
            exchange.setProperty("p" + i, i);
        }
        assertThat(exchange.getProperties()).hasSize(40).containsEntry("p0", 0).containsEntry("p39", 39);
    }

    @Test
    void withTheTuningOffTheRequestPathUsesVertxTimersAndNoDeferredRouteEnds() {
        CamelTuning off = CamelTuning.of(false);
        Vertx vertx = Vertx.vertx();
        try {
            DelayScheduler timers = off.timers(vertx);
            assertThat(timers).isNotInstanceOf(EventLoopDelayScheduler.class);
            assertThat(off.routeEnds(timers)).isNull();
            assertThat(off.messages().create(null, null, null)).isNull();
            assertThat(CamelTuning.of(true).timers(vertx)).isInstanceOf(EventLoopDelayScheduler.class);
        } finally {
            vertx.close();
        }
    }
}
