package dev.caravan.processors.flow;

import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_HEADERS;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.admission.AdmissionConfig;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.admission.AdmissionObserver;
import dev.caravan.processors.admission.AdmissionTicket;
import dev.caravan.processors.admission.FlowKey;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.forward.OutputMeter;
import dev.caravan.processors.forward.Usage;
import dev.caravan.processors.time.ManualScheduler;

class LimitTenantRateProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final TenantRateLimiter limiter = new TenantRateLimiter(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
    private final AdmissionController admission = new AdmissionController(AdmissionConfig.defaults(),
            new ManualScheduler(), System::nanoTime, AdmissionObserver.NONE);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final LimitTenantRateProcessor step = new LimitTenantRateProcessor(limiter, admission,
            new TenantMetrics(meters));
    private final Tenant acme = new Tenant("acme", TenantClass.DEFAULT, new TenantLimits(1, 1000, 500));

    private Exchange request(String text) {
        Exchange e = CAMEL.exchange();
        Tenant.PROPERTY.set(e, acme);
        ROUTING_TEXT.set(e, text);
        return e;
    }

    /** What admitRequest does: a ticket, the estimate charged to the tenant's fair share. */
    private void admit(Exchange e) {
        AdmissionController.Decision d = admission.admit(new AdmissionController.Waiter() {
            @Override
            public void admitted(AdmissionTicket ticket) {
            }

            @Override
            public void rejected(dev.caravan.processors.admission.Rejection reason) {
            }
        }, FlowKey.PROPERTY.get(e, acme.flowKey()), FlowKey.COST.get(e));
        AdmissionTicket.PROPERTY.set(e, ((AdmissionController.Admitted) d).ticket());
    }

    /** Runs the step as a route does; rethrows the error it sets on the exchange. */
    private void run(Exchange e) {
        step.process(e, doneSync -> { });
        if (e.getException() instanceof GatewayException g) {
            throw g;
        }
    }

    /** A fleet budget that answers {@code answers[0]} and keeps the callback of a pending request. */
    private static FleetBudget fleet(long[] answers, Runnable[] callback) {
        return new FleetBudget() {
            @Override
            public long takeRequest(Tenant tenant) {
                return answers[0];
            }

            @Override
            public void whenAnswered(Tenant tenant, Runnable then) {
                callback[0] = then;
            }
        };
    }

    private static void complete(Exchange e) {
        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));
    }

    @Test
    void overTheLimitIsA429WithRetryAfterAndRateLimitHeaders() {
        run(request("x".repeat(40)));

        assertThatThrownBy(() -> run(request("hello")))
                .isInstanceOfSatisfying(GatewayException.class, g -> {
                    assertThat(g.error()).isEqualTo(GatewayError.TENANT_RATE_LIMITED);
                    assertThat(g.headers()).containsEntry("Retry-After", "60")
                            .containsEntry("x-ratelimit-limit-requests", "1")
                            .containsEntry("x-ratelimit-remaining-requests", "0")
                            .containsEntry("x-ratelimit-reset-requests", "1m0s")
                            .containsEntry("x-ratelimit-limit-tokens", "1000")
                            .containsEntry("x-ratelimit-remaining-tokens", "990");
                });
        assertThat(meters.get("caravan.tenant.throttled").tags("tenant", "acme", "limit", "requests").counter()
                .count()).isEqualTo(1);
    }

    @Test
    void theEstimateIsTheTextsLengthOverFourAndIsCorrectedOnceWhenTheExchangeCompletes() {
        Exchange e = request("x".repeat(400));
        run(e);
        assertThat(FlowKey.COST.get(e)).isEqualTo(100);
        admit(e);
        Usage.PROPERTY.set(e, new Usage(30, 0, 200));

        var hooks = e.getExchangeExtension().handoverCompletions();
        hooks.forEach(s -> s.onComplete(e));
        hooks.forEach(s -> s.onFailure(e)); // told twice (a hook must not count on once): nothing more is charged

        Tenant next = new Tenant("acme", TenantClass.DEFAULT, new TenantLimits(1, 1000, 500));
        RateVerdict v = limiter.acquire(next, 0);
        assertThat(v.headers()).containsEntry("x-ratelimit-remaining-tokens", "970")
                .containsEntry("x-ratelimit-remaining-output-tokens", "300");
        assertThat(admission.served("acme")).as("fair share: the real prompt plus the output").isEqualTo(230);
    }

    @Test
    void aRequestAdmissionNeverLetInGetsItsTokensBack() {
        Exchange e = request("x".repeat(400));
        run(e);

        complete(e);

        assertThat(limiter.acquire(acme, 0).headers()).containsEntry("x-ratelimit-remaining-tokens", "1000");
        assertThat(admission.served("acme")).isZero();
    }

    @Test
    void withoutUsageTheEstimateStandsAndNoOutputIsCharged() {
        Exchange e = request("x".repeat(400));
        run(e);
        admit(e);

        complete(e);

        assertThat(limiter.acquire(acme, 0).headers()).containsEntry("x-ratelimit-remaining-tokens", "900")
                .containsEntry("x-ratelimit-remaining-output-tokens", "500");
    }

    @Test
    void aTenantWithoutLimitsPassesAndStillCountsItsShare() {
        Exchange e = CAMEL.exchange();
        ROUTING_TEXT.set(e, "abcdefgh");
        run(e);
        assertThat(FlowKey.COST.get(e)).isEqualTo(2);
    }

    @Test
    void anAdmittedRequestCarriesItsRateLimitHeadersForWhateverResponseItGets() {
        Exchange e = request("x".repeat(40));
        run(e);

        assertThat(RESPONSE_HEADERS.get(e)).containsEntry("x-ratelimit-limit-requests", "1")
                .containsEntry("x-ratelimit-remaining-requests", "0")
                .containsEntry("x-ratelimit-limit-tokens", "1000")
                .containsEntry("x-ratelimit-remaining-tokens", "990")
                .containsEntry("x-ratelimit-reset-requests", "1m0s");
    }

    @Test
    void outputIsChargedAsTheStreamFlowsAndSettledOnceAgainstUsage() {
        Tenant writer = new Tenant("writer", TenantClass.DEFAULT, new TenantLimits(-1, -1, 100));
        Exchange e = CAMEL.exchange();
        Tenant.PROPERTY.set(e, writer);
        FlowKey.PROPERTY.set(e, writer.flowKey());
        ROUTING_TEXT.set(e, "x".repeat(40));
        run(e);
        admit(e);
        OutputMeter meter = OutputMeter.PROPERTY.get(e);

        meter.outputSoFar(60);
        meter.outputSoFar(110);
        meter.outputSoFar(90); // never less than already charged

        RateVerdict during = limiter.acquire(writer, 0);
        assertThat(during.allowed()).as("the next request waits while the stream still runs").isFalse();
        assertThat(during.limit()).isEqualTo(RateVerdict.OUTPUT_TOKENS);

        Usage.PROPERTY.set(e, new Usage(10, 0, 80));
        complete(e);
        meter.outputSoFar(200); // after settlement: ignored

        assertThat(limiter.acquire(writer, 0).headers()).containsEntry("x-ratelimit-remaining-output-tokens", "20");
        assertThat(limiter.localUsage().get("writer")).containsExactly(2, 10, 80);
        assertThat(admission.served("writer")).as("prompt and the settled output").isEqualTo(90);
    }

    @Test
    void aStreamWithoutUsageKeepsItsEstimateAndATenantWithoutAnOutputLimitHasNoMeter() {
        Tenant writer = new Tenant("writer", TenantClass.DEFAULT, new TenantLimits(-1, -1, 100));
        Exchange e = CAMEL.exchange();
        Tenant.PROPERTY.set(e, writer);
        run(e);
        admit(e);
        OutputMeter.PROPERTY.get(e).outputSoFar(30);

        complete(e);

        assertThat(limiter.acquire(writer, 0).headers()).containsEntry("x-ratelimit-remaining-output-tokens", "70");
        Exchange plain = CAMEL.exchange();
        Tenant.PROPERTY.set(plain, new Tenant("asker", TenantClass.DEFAULT, new TenantLimits(5, -1, -1)));
        run(plain);
        assertThat(OutputMeter.PROPERTY.get(plain)).isNull();
    }

    @Test
    void aRequestWhoseFleetShareIsOnItsWayWaitsForItWithoutAThreadThenPasses() {
        long[] answers = {FleetBudget.PENDING};
        Runnable[] callback = new Runnable[1];
        limiter.shareRequests(fleet(answers, callback));
        Exchange e = request("hi");
        boolean[] done = new boolean[2];

        boolean sync = step.process(e, doneSync -> {
            done[0] = true;
            done[1] = doneSync;
        });
        assertThat(sync).isFalse();
        assertThat(done[0]).isFalse();
        answers[0] = 0;
        callback[0].run();

        assertThat(done).containsExactly(true, false);
        assertThat(e.getException()).isNull();
        assertThat(FlowKey.COST.get(e)).isEqualTo(1L);
    }

    @Test
    void aRequestStillPendingOnceTheFleetAnsweredIsRefusedWithASecondToWait() {
        long[] answers = {FleetBudget.PENDING};
        Runnable[] callback = new Runnable[1];
        limiter.shareRequests(fleet(answers, callback));
        Exchange e = request("hi");

        step.process(e, doneSync -> { });
        callback[0].run();

        assertThat(e.getException()).isInstanceOfSatisfying(GatewayException.class, g -> {
            assertThat(g.error()).isEqualTo(GatewayError.TENANT_RATE_LIMITED);
            assertThat(g.headers()).containsEntry("Retry-After", "1");
        });
    }
}
