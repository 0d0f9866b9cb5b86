package dev.caravan.processors.tuning;

import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_END_NANOS;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicy;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RouteTimerTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final CamelContext context = new DefaultCamelContext();

    /** Route-level meters only, as application.properties sets them ({@code routePolicyLevel = route}). */
    private void start() throws Exception {
        start(false);
    }

    private void start(boolean contextMeters) throws Exception {
        MicrometerRoutePolicyFactory micrometer = new MicrometerRoutePolicyFactory();
        micrometer.setMeterRegistry(registry);
        micrometer.getPolicyConfiguration().setContextEnabled(contextMeters);
        context.addRoutePolicyFactory(micrometer);
        assertThat(RouteTimers.excludeInnerRoutes(context)).isTrue();
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:inference").routeId("inference").process(e -> {
                    if (e.getIn().getBody(String.class).equals("fail")) {
                        throw new IllegalStateException("failed");
                    }
                    assertThat(e.getProperty(RouteTimer.SAMPLE)).isInstanceOf(Long.class);
                    if (e.getIn().getBody(String.class).equals("answered")) { // the answer ended 7 ms after the start
                        RESPONSE_END_NANOS.set(e, e.getProperty(RouteTimer.SAMPLE, Long.class) + 7_000_000L);
                    }
                });
                from("direct:control").routeId("control").log("control");
                from("direct:attempt-pd-sglang").routeId("attempt-pd-sglang").log("attempt");
            }
        });
        context.start();
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    private double count(String name, String routeId) {
        return registry.find(name).tag("routeId", routeId).counter().count();
    }

    @Test
    void theInferenceRouteKeepsCamelsMetersOnceEachWithoutItsSampleLeftOnTheExchange() throws Exception {
        start();
        Exchange ok = context.createProducerTemplate().send("direct:inference", e -> e.getIn().setBody("ok"));
        Exchange failed = context.createProducerTemplate().send("direct:inference", e -> e.getIn().setBody("fail"));

        assertThat(ok.getProperty(RouteTimer.SAMPLE)).isNull();
        assertThat(failed.getException()).isInstanceOf(IllegalStateException.class);
        assertThat(registry.find("camel.route.policy").tag("routeId", "inference").timers()).hasSize(1)
                .first().extracting(Timer::count).isEqualTo(2L);
        assertThat(count("camel.exchanges.total", "inference")).isEqualTo(2.0);
        assertThat(count("camel.exchanges.succeeded", "inference")).isEqualTo(1.0);
        assertThat(count("camel.exchanges.failed", "inference")).isEqualTo(1.0);
    }

    @Test
    void untimedRoutesHaveNoRoutePolicyAndInferenceOnlyItsTimer() throws Exception {
        start();
        context.createProducerTemplate().sendBody("direct:attempt-pd-sglang", "x");

        assertThat(context.getRoute("attempt-pd-sglang").getRoutePolicyList()).isEmpty();
        assertThat(context.getRoute("inference").getRoutePolicyList()).singleElement().isInstanceOf(RouteTimer.class);
        assertThat(registry.find("camel.exchanges.total").tag("routeId", "attempt-pd-sglang").counter()).isNull();
    }

    @Test
    void withContextMetersOnUntimedRoutesKeepCamelsPolicyWhichFeedsThem() throws Exception {
        start(true);

        assertThat(context.getRoute("attempt-pd-sglang").getRoutePolicyList()).singleElement()
                .isInstanceOf(MicrometerRoutePolicy.class);
    }

    @Test
    void otherRoutesKeepCamelsOwnPolicy() throws Exception {
        start();
        context.createProducerTemplate().sendBody("direct:control", "x");

        assertThat(registry.find("camel.route.policy").tag("routeId", "control").timer().count()).isEqualTo(1L);
        assertThat(count("camel.exchanges.total", "control")).isEqualTo(1.0);
        assertThat(context.getRoute("control").getRoutePolicyList()).singleElement()
                .isInstanceOf(MicrometerRoutePolicy.class);
    }

    @Test
    void aStreamedAnswerIsTimedToTheEndOfItsResponseNotToTheRoutesEnd() throws Exception {
        start();
        context.createProducerTemplate().sendBody("direct:inference", "answered");

        Timer timer = registry.find("camel.route.policy").tag("routeId", "inference").timer();
        assertThat(timer.count()).isEqualTo(1L);
        assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isEqualTo(7_000_000.0);
    }
}
