package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.flow.FleetBudget;
import dev.caravan.processors.flow.Tenant;
import dev.caravan.processors.flow.TenantClass;
import dev.caravan.processors.flow.TenantLimits;

class QuotaLeasesTest {

    /** One call to the shared buckets, answered by the test. */
    private record Call(String tenant, long limit, long charge, long want, CompletableFuture<long[]> answer) {
    }

    private static final Tenant ACME = new Tenant("acme", TenantClass.DEFAULT, new TenantLimits(30, -1, -1));

    private final List<Call> calls = new ArrayList<>();
    private final AtomicLong millis = new AtomicLong(5_000);
    private final AtomicInteger failures = new AtomicInteger();
    private final QuotaLeases leases = new QuotaLeases((tenant, limit, charge, want) -> {
        Call c = new Call(tenant, limit, charge, want, new CompletableFuture<>());
        calls.add(c);
        return c.answer();
    }, () -> 3, millis::get, failures::incrementAndGet);

    private Call last() {
        return calls.get(calls.size() - 1);
    }

    @Test
    void theFirstRequestPassesOnCreditAndTheOthersWaitForTheSliceItAsksFor() {
        assertThat(leases.takeRequest(ACME)).isZero();
        assertThat(leases.takeRequest(ACME)).isEqualTo(FleetBudget.PENDING);
        List<String> woken = new ArrayList<>();
        leases.whenAnswered(ACME, () -> woken.add("second"));

        assertThat(calls).hasSize(1);
        assertThat(last()).extracting(Call::tenant, Call::limit, Call::charge, Call::want)
                .containsExactly("acme", 30L, 1L, 10L);
        assertThat(woken).isEmpty();
        last().answer().complete(new long[] {10, 0});
        assertThat(woken).containsExactly("second");
        assertThat(leases.takeRequest(ACME)).isZero();
    }

    @Test
    void aRequestWaitingForNothingInFlightIsWokenAtOnce() {
        List<String> woken = new ArrayList<>();

        leases.whenAnswered(ACME, () -> woken.add("now"));

        assertThat(woken).containsExactly("now");
    }

    @Test
    void leasedUnitsAdmitWithoutACallUntilHalfASliceIsLeftThenTheNextSliceIsAskedFor() {
        leases.takeRequest(ACME);
        last().answer().complete(new long[] {10, 0});

        for (int i = 0; i < 4; i++) {
            assertThat(leases.takeRequest(ACME)).isZero();
        }
        assertThat(calls).hasSize(1);
        assertThat(leases.takeRequest(ACME)).isZero();

        assertThat(calls).hasSize(2);
        assertThat(last()).extracting(Call::charge, Call::want).containsExactly(0L, 10L);
        assertThat(leases.units("acme")).isEqualTo(5);
    }

    @Test
    void anEmptyBudgetRefusesWithItsWaitThenTheNextRequestPassesOnCreditAgain() {
        leases.takeRequest(ACME);
        last().answer().complete(new long[] {0, 2_000});

        assertThat(leases.takeRequest(ACME)).isEqualTo(2_000);
        millis.addAndGet(1_500);
        assertThat(leases.takeRequest(ACME)).isEqualTo(500);
        millis.addAndGet(500);
        assertThat(leases.takeRequest(ACME)).isZero();

        assertThat(calls).hasSize(2);
        assertThat(last()).extracting(Call::charge, Call::want).containsExactly(1L, 10L);
    }

    @Test
    void unitsLeftWhenTheLeaseEndsGoBackToTheSharedBudget() {
        leases.takeRequest(ACME);
        last().answer().complete(new long[] {10, 0});
        leases.takeRequest(ACME);
        millis.addAndGet(QuotaLeases.LEASE_MILLIS);

        leases.sweep();

        assertThat(leases.units("acme")).isZero();
        assertThat(calls).hasSize(2);
        assertThat(last()).extracting(Call::charge, Call::want).containsExactly(-9L, 0L);
    }

    @Test
    void anExpiredLeaseIsNotUsedAndItsUnitsGoBackWithTheNextCredit() {
        leases.takeRequest(ACME);
        last().answer().complete(new long[] {10, 0});
        millis.addAndGet(QuotaLeases.LEASE_MILLIS);

        assertThat(leases.takeRequest(ACME)).isZero();

        assertThat(last()).extracting(Call::charge, Call::want).containsExactly(1L - 10L, 10L);
    }

    @Test
    void aFailedCallIsCountedAndTheLocalBucketsDecideAloneUntilTheNextTry() {
        leases.takeRequest(ACME);
        last().answer().completeExceptionally(new IllegalStateException("partitioned"));

        assertThat(failures.get()).isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            assertThat(leases.takeRequest(ACME)).isZero();
        }
        assertThat(calls).hasSize(1);
        millis.addAndGet(QuotaLeases.ALONE_MILLIS);

        assertThat(leases.takeRequest(ACME)).isZero();
        assertThat(leases.takeRequest(ACME)).isEqualTo(FleetBudget.PENDING);
        assertThat(calls).hasSize(2);
    }

    @Test
    void aCallThatCannotBeMadeCountsAsFailed() {
        QuotaLeases closing = new QuotaLeases((tenant, limit, charge, want) -> {
            throw new IllegalStateException("Hazelcast instance is not active");
        }, () -> 3, millis::get, failures::incrementAndGet);

        assertThat(closing.takeRequest(ACME)).isZero();
        assertThat(closing.takeRequest(ACME)).isZero();

        assertThat(failures.get()).isEqualTo(1);
    }

    @Test
    void aNewLimitVoidsTheUnitsLeasedUnderTheOldOne() {
        leases.takeRequest(ACME);
        last().answer().complete(new long[] {10, 0});
        Tenant raised = new Tenant("acme", TenantClass.DEFAULT, new TenantLimits(60, -1, -1));

        assertThat(leases.takeRequest(raised)).isZero();

        assertThat(last()).extracting(Call::limit, Call::charge, Call::want).containsExactly(60L, 1L, 20L);
        assertThat(leases.units("acme")).isZero();
    }

    @Test
    void aTenantWithoutARequestsLimitTakesNothing() {
        Tenant tokensOnly = new Tenant("bulk", TenantClass.DEFAULT, new TenantLimits(-1, 1_000, -1));

        assertThat(leases.takeRequest(tokensOnly)).isZero();
        assertThat(calls).isEmpty();
    }
}
