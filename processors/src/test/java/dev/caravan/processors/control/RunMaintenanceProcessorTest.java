package dev.caravan.processors.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.routing.PolicyRegistry;

class RunMaintenanceProcessorTest {

    /** A policy whose housekeeping is counted. */
    static final class CountingPolicy implements LoadBalancingPolicy, Maintainable {
        final Duration interval;
        int runs;
        boolean fail;

        CountingPolicy(Duration interval) {
            this.interval = interval;
        }

        @Override
        public Decision select(List<Worker> candidates, SelectionContext context) {
            return Decision.of(candidates.get(0), name(), "first");
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public Duration maintenanceInterval() {
            return interval;
        }

        @Override
        public void runMaintenance() {
            runs++;
            if (fail) {
                throw new IllegalStateException("boom");
            }
        }
    }

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private RunMaintenanceProcessor processorFor(CountingPolicy policy) {
        WorkerRegistry workers = new WorkerRegistry();
        PolicyRegistry policies = new PolicyRegistry(workers, m -> policy);
        workers.add(Worker.builder("http://a:1").build());
        return new RunMaintenanceProcessor(policies, now::get);
    }

    @Test
    void runsEachPolicyEveryItsOwnInterval() {
        CountingPolicy policy = new CountingPolicy(Duration.ofSeconds(60));
        RunMaintenanceProcessor run = processorFor(policy);

        run.process(null);                      // first sighting starts the clock
        now.addAndGet(Duration.ofSeconds(59).toNanos());
        run.process(null);
        assertThat(policy.runs).isZero();
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        run.process(null);
        assertThat(policy.runs).isEqualTo(1);
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        run.process(null);
        assertThat(policy.runs).isEqualTo(1);
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        run.process(null);
        assertThat(policy.runs).isEqualTo(2);
    }

    /** A tick of a timer with the given period, as the policy-maintenance route's timer sends it (includeMetadata). */
    private static Exchange tick(long periodMillis) {
        Exchange tick = new DefaultExchange(new DefaultCamelContext());
        tick.setProperty(Exchange.TIMER_PERIOD, periodMillis);
        return tick;
    }

    @Test
    void aTickUpToHalfATimerPeriodEarlyCountsAsDue() {
        CountingPolicy policy = new CountingPolicy(Duration.ofSeconds(5));
        RunMaintenanceProcessor run = processorFor(policy);

        run.process(tick(1000));
        for (int second = 1; second <= 10; second++) {
            now.addAndGet(Duration.ofSeconds(1).minusMillis(second % 2 == 0 ? 3 : 0).toNanos()); // early by 3 ms
            run.process(tick(1000));
            assertThat(policy.runs).as("after tick %d", second).isEqualTo(second / 5);
        }
    }

    @Test
    void aTickMoreThanHalfATimerPeriodEarlyWaitsForTheNext() {
        CountingPolicy policy = new CountingPolicy(Duration.ofSeconds(5));
        RunMaintenanceProcessor run = processorFor(policy);

        run.process(tick(1000));
        now.addAndGet(Duration.ofMillis(4_499).toNanos());
        run.process(tick(1000));
        assertThat(policy.runs).isZero();
        now.addAndGet(Duration.ofMillis(1).toNanos());
        run.process(tick(1000));
        assertThat(policy.runs).isEqualTo(1);
    }

    @Test
    void withoutATimerPeriodTheWholeIntervalMustElapse() {
        CountingPolicy policy = new CountingPolicy(Duration.ofSeconds(5));
        RunMaintenanceProcessor run = processorFor(policy);

        run.process(null);
        now.addAndGet(Duration.ofSeconds(5).minusMillis(3).toNanos());
        run.process(null);
        assertThat(policy.runs).isZero();
    }

    @Test
    void aZeroIntervalDisablesMaintenance() {
        CountingPolicy policy = new CountingPolicy(Duration.ZERO);
        RunMaintenanceProcessor run = processorFor(policy);
        for (int i = 0; i < 5; i++) {
            run.process(null);
            now.addAndGet(Duration.ofHours(1).toNanos());
        }
        assertThat(policy.runs).isZero();
    }

    @Test
    void aFailingRunIsLoggedAndRetriedNextInterval() {
        CountingPolicy policy = new CountingPolicy(Duration.ofSeconds(1));
        policy.fail = true;
        RunMaintenanceProcessor run = processorFor(policy);
        run.process(null);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        run.process(null);
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        run.process(null);
        assertThat(policy.runs).isEqualTo(2);
    }
}
