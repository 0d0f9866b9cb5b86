package dev.caravan.processors.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.time.ManualScheduler;

class AdmitRequestProcessorTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final ManualScheduler timers = new ManualScheduler();
    private final AdmissionController controller = new AdmissionController(
            new AdmissionConfig(1, 1, Duration.ofSeconds(5), -1), timers, System::nanoTime, AdmissionObserver.NONE);
    private final AdmitRequestProcessor admit = new AdmitRequestProcessor(controller);

    private static void complete(Exchange e) {
        e.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(e));
    }

    @Test
    void aSlotIsHeldUntilTheExchangeCompletesAndThenPassedOn() {
        Exchange first = CAMEL.exchange();
        AtomicInteger firstDone = new AtomicInteger();
        assertThat(admit.process(first, sync -> firstDone.incrementAndGet())).isTrue();
        assertThat(AdmissionTicket.PROPERTY.get(first)).isInstanceOf(AdmissionTicket.class);

        Exchange second = CAMEL.exchange();
        AtomicInteger secondDone = new AtomicInteger();
        assertThat(admit.process(second, sync -> secondDone.incrementAndGet())).as("queued: asynchronous").isFalse();
        assertThat(secondDone).hasValue(0);

        complete(first);

        assertThat(secondDone).hasValue(1);
        assertThat(second.getException()).isNull();
        assertThat(controller.inFlight()).isEqualTo(1);
        complete(second);
        assertThat(controller.inFlight()).isZero();
        assertThat(controller.slotsInUse()).isZero();
    }

    @Test
    void rejectionsBecomeTheirHttpErrors() {
        admit.process(CAMEL.exchange(), sync -> { });
        Exchange queued = CAMEL.exchange();
        admit.process(queued, sync -> { });
        Exchange overflow = CAMEL.exchange();

        admit.process(overflow, sync -> { });
        timers.advance(5_000);

        assertThat(((GatewayException) overflow.getException()).error().status()).isEqualTo(429);
        assertThat(((GatewayException) overflow.getException()).error().code()).isEqualTo("queue_full");
        assertThat(((GatewayException) queued.getException()).error().status()).isEqualTo(408);
        assertThat(((GatewayException) queued.getException()).error().code()).isEqualTo("queue_timeout");
    }
}
