package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.tree.ApproximateRadixTree;
import dev.caravan.processors.routing.PolicyRegistry;

class TreeCalibratorTest {

    private static final int CHARS_PER_TOKEN = 4;
    private static final int BLOCK_SIZE = 16;

    private final WorkerRegistry workers = new WorkerRegistry();
    private final KvCapacities capacities = new KvCapacities();

    private TreeCalibrator calibrator(PolicyConfig policy) {
        PolicyRegistry policies = new PolicyRegistry(workers, m -> PolicyFactory.create(policy, PolicyEnvironment.seeded(1)));
        return new TreeCalibrator(workers, policies, capacities, CHARS_PER_TOKEN, BLOCK_SIZE);
    }

    /** Three prompts of 100 chars with distinct first characters: three leaves, oldest first. */
    private static void insertThreePrompts(ApproximateRadixTree tree, String tenant) {
        for (char c : new char[] {'a', 'b', 'c'}) {
            tree.insert(String.valueOf(c).repeat(100), tenant);
        }
    }

    private record Fleet(TreeCalibrator calibrator, Worker worker, TreeBacked policy, ApproximateRadixTree tree) {
    }

    private Fleet cacheAwareFleet() {
        PolicyRegistry policies = new PolicyRegistry(workers,
                m -> PolicyFactory.create(CacheAwareConfig.defaults(), PolicyEnvironment.seeded(1)));
        TreeCalibrator c = new TreeCalibrator(workers, policies, capacities, CHARS_PER_TOKEN, BLOCK_SIZE);
        Worker w = workers.add(Worker.builder("http://a:8000").id("a").modelId("m").build());
        TreeBacked tb = (TreeBacked) policies.policies().get("m");
        ApproximateRadixTree tree = tb.tree("m").orElseThrow();
        insertThreePrompts(tree, w.url());
        return new Fleet(c, w, tb, tree);
    }

    @Test
    void evictsAboutTheRemovedBlocksCharactersLeastRecentlyUsedFirst() {
        Fleet f = cacheAwareFleet();
        assertThat(f.tree.tenantChars(f.worker.url())).isEqualTo(300);

        f.calibrator.blocksRemoved("a", "m", new long[] {1L});   // 1 x 16 tokens x 4 chars = 64 -> the oldest leaf

        assertThat(f.tree.tenantChars(f.worker.url())).isEqualTo(200);
        assertThat(f.tree.prefixMatch("a".repeat(100)).matchedChars()).isZero();
        assertThat(f.tree.prefixMatch("c".repeat(100)).matchedChars()).isEqualTo(100);
        assertThat(f.calibrator.evictedChars("a")).isEqualTo(100);
    }

    @Test
    void evictionsBeyondWhatWasOwedAreCreditForTheNextEvents() {
        Fleet f = cacheAwareFleet();

        for (int i = 0; i < 3; i++) {   // engines send one event per evicted block: 3 x 64 = 192 chars owed
            f.calibrator.blocksRemoved("a", "m", new long[] {i});
        }

        // 64 owed: "a" (100) goes, 36 credit; 28 owed: "b" goes, 72 credit; -8: nothing. Not a whole edge per event.
        assertThat(f.tree.tenantChars(f.worker.url())).isEqualTo(100);
        assertThat(f.tree.prefixMatch("c".repeat(100)).matchedChars()).isEqualTo(100);
        f.calibrator.blocksRemoved("a", "m", new long[] {3});
        assertThat(f.tree.tenantChars(f.worker.url())).isZero();   // 56 owed: "c" goes
    }

    @Test
    void usesTheBlockSizeTheEngineReported() {
        Fleet f = cacheAwareFleet();
        capacities.record("a", new KvCapacity(4096, 64));

        f.calibrator.blocksRemoved("a", "m", new long[] {1L});   // 1 x 64 x 4 = 256 chars -> all three leaves

        assertThat(f.tree.tenantChars(f.worker.url())).isZero();
    }

    @Test
    void aClearedEngineLeavesItsWorkerATenantWithNothingCached() {
        Fleet f = cacheAwareFleet();

        f.calibrator.rankCleared("a", 0);

        assertThat(f.tree.tenantChars(f.worker.url())).isZero();
        assertThat(f.tree.hasTenant(f.worker.url())).isTrue();
        assertThat(f.calibrator.evictedChars("a")).isEqualTo(300);
    }

    @Test
    void budgetsFollowTheReportedCapacity() {
        Fleet f = cacheAwareFleet();
        assertThat(f.calibrator.budget(f.worker)).isEqualTo(CacheAwareConfig.DEFAULT_MAX_TREE_SIZE);

        f.calibrator.applyBudgets(Map.of("a", new KvCapacity(1000, 16), "gone", new KvCapacity(5, 1)));

        assertThat(f.policy.tenantCharBudget(f.worker.url())).isEqualTo(4000);
        assertThat(f.calibrator.budget(f.worker)).isEqualTo(4000);
        ((dev.caravan.policies.Maintainable) f.policy).runMaintenance();
        assertThat(f.tree.tenantChars(f.worker.url())).isEqualTo(300); // within budget: untouched
        f.calibrator.applyBudgets(Map.of("a", new KvCapacity(50, 16)));   // 200 chars
        ((dev.caravan.policies.Maintainable) f.policy).runMaintenance();
        assertThat(f.tree.tenantChars(f.worker.url())).isEqualTo(200);
    }

    @Test
    void policiesWithoutATreeAndUnknownWorkersAreLeftAlone() {
        TreeCalibrator c = calibrator(PolicyConfig.fromOptions("round_robin", Map.of()));
        Worker w = workers.add(Worker.builder("http://a:8000").id("a").modelId("m").build());

        c.blocksRemoved("a", "m", new long[] {1L, 2L});
        c.blocksRemoved("nobody", "m", new long[] {1L});
        c.rankCleared("a", 0);
        c.applyBudgets(Map.of("a", new KvCapacity(1000, 16)));

        assertThat(c.evictedChars("a")).isZero();
        assertThat(c.budget(w)).isEqualTo(-1);
    }
}
