package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class TakeQuotaLeaseTest {

    private static final long T0 = 1_000_000;

    /** A map entry as Hazelcast hands an entry processor: its value set in place. */
    private final Map.Entry<String, long[]> entry = new AbstractMap.SimpleEntry<>("acme", null);

    private long[] take(long limit, long charge, long want, long now) {
        return new TakeQuotaLease(limit, charge, want, now).process(entry);
    }

    @Test
    void aNewBudgetGrantsSlicesUntilTheLimitIsSpentThenTellsWhenAUnitRefills() {
        assertThat(take(30, 0, 10, T0)).containsExactly(10, 0);
        assertThat(take(30, 0, 10, T0)).containsExactly(10, 0);
        assertThat(take(30, 1, 10, T0)).containsExactly(9, 2_000);
        assertThat(take(30, 0, 10, T0 + 1_999)).containsExactly(0, 1);
        assertThat(take(30, 0, 10, T0 + 2_000)).containsExactly(1, 2_000);
    }

    @Test
    void aCreditOnAnEmptyBudgetLeavesADebtThatLaterCallsWaitOut() {
        take(30, 0, 30, T0);

        assertThat(take(30, 1, 10, T0)).containsExactly(0, 4_000);
        assertThat(take(30, 0, 10, T0 + 4_000)).containsExactly(1, 2_000);
    }

    @Test
    void returnedUnitsAreGrantedAgainButNeverAboveTheLimit() {
        take(30, 0, 10, T0);

        assertThat(take(30, -10, 0, T0)).containsExactly(0, 0);
        assertThat(take(30, -5, 40, T0)).containsExactly(30, 2_000);
    }

    @Test
    void anotherLimitStartsAFullBudget() {
        take(30, 0, 30, T0);

        assertThat(take(60, 0, 100, T0)).containsExactly(60, 1_000);
    }

    @Test
    void aClockBehindTheLastCallRefillsNothing() {
        take(30, 0, 30, T0);

        assertThat(take(30, 0, 1, T0 - 60_000)).containsExactly(0, 2_000);
    }
}
