package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * A budget sized from the engine's KV capacity ({@code max-tree-size auto}) is enforced on insert once passed by 1/32
 * of it, least recently used first, as the engine's pool evicts; a configured {@code max-tree-size} only by the
 * periodic pass (SGLang's meaning).
 */
class CacheAwareTreeBudgetTest {

    private static final String A = "a".repeat(1000);
    private static final String B = "b".repeat(1000);
    private static final String C = "c".repeat(1000);
    private static final String D = "d".repeat(1000);

    private final List<Worker> workers = TestWorkers.of(1);
    private final String url = workers.get(0).url();

    private CacheAwarePolicy policy(CacheAwareConfig config) {
        CacheAwarePolicy p = new CacheAwarePolicy(config, PolicyEnvironment.seeded(1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private void send(CacheAwarePolicy p, String... prompts) {
        for (String s : prompts) {
            p.select(workers, SelectionContext.ofText(s));
        }
    }

    private static long held(CacheAwarePolicy p, String prompt) {
        return tree(p).prefixMatch(prompt).matchedChars();
    }

    private static ApproximateRadixTree tree(CacheAwarePolicy p) {
        return p.tree(Worker.UNKNOWN_MODEL_ID).orElseThrow();
    }

    @Test
    void engineSizedBudgetPassedBeyondItsSlackEvictsTheLeastRecentlyUsedPromptOnInsert() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults());
        p.setTenantCharBudget(url, 3200); // slack 100: evicts above 3300
        send(p, A, B, C);
        assertThat(tree(p).tenantChars(url)).isEqualTo(3000);

        send(p, D);

        assertThat(tree(p).tenantChars(url)).isEqualTo(3000);
        assertThat(held(p, A)).isZero();
        assertThat(held(p, B)).isEqualTo(1000);
        assertThat(held(p, D)).isEqualTo(1000);
    }

    @Test
    void aPromptSentAgainIsRecentAndTheNextOldestIsEvictedInstead() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults());
        p.setTenantCharBudget(url, 3200);
        send(p, A, B, C, A, D);

        assertThat(held(p, A)).isEqualTo(1000);
        assertThat(held(p, B)).isZero();
        assertThat(tree(p).tenantChars(url)).isEqualTo(3000);
    }

    @Test
    void engineSizedBudgetPassedWithinItsSlackWaitsForTheNextInsertOrPass() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults());
        p.setTenantCharBudget(url, 3950); // slack 123: 4,000 is within 4,073
        send(p, A, B, C, D);
        assertThat(tree(p).tenantChars(url)).isEqualTo(4000);

        p.runMaintenance();

        assertThat(tree(p).tenantChars(url)).isEqualTo(3000);
        assertThat(held(p, A)).isZero();
    }

    @Test
    void configuredMaxTreeSizeIsEnforcedOnlyByThePeriodicPassAsInSglang() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withMaxTreeSize(2000));
        send(p, A, B, C, D);
        assertThat(tree(p).tenantChars(url)).isEqualTo(4000);
        assertThat(p.tenantCharBudget(url)).isEqualTo(2000);

        p.runMaintenance();

        assertThat(tree(p).tenantChars(url)).isEqualTo(2000);
        assertThat(held(p, C)).isEqualTo(1000);
        assertThat(held(p, B)).isZero();
    }

    @Test
    void clearingTheEngineSizedBudgetStopsTheEvictionOnInsert() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults());
        p.setTenantCharBudget(url, 2000);
        p.clearTenantCharBudget(url);
        send(p, A, B, C, D);

        assertThat(tree(p).tenantChars(url)).isEqualTo(4000);
        assertThat(p.tenantCharBudget(url)).isEqualTo(CacheAwareConfig.DEFAULT_MAX_TREE_SIZE);
    }

    @Test
    void negativeEngineSizedBudgetIsRefused() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults());
        assertThatThrownBy(() -> p.setTenantCharBudget(url, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(">= 0");
    }
}
