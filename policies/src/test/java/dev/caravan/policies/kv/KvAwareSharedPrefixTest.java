package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;

/**
 * {@code --kv-discount-shared-prefix} (default on): a prefix at least 1/N of the routed requests go on from in more
 * than one way saves nothing in kv_aware's cost, so a hot tenant spreads by load while conversations and b2b tenants
 * below 1/N keep their engine.
 */
class KvAwareSharedPrefixTest {

    private static final String MODEL = "m";
    private static final int BS = 4;
    /** 32 tokens = 8 blocks: a tenant's system prompt or a preamble every conversation shares. */
    private static final int PREFIX_TOKENS = 32;

    private final KvBlockIndex index = new KvBlockIndex();
    private final List<Worker> workers = IntStream.rangeClosed(1, 4)
            .mapToObj(i -> Worker.builder("http://w" + i + ":8000").id("w" + i).modelId(MODEL).build()).toList();

    private KvAwarePolicy policy(boolean discount) {
        return new KvAwarePolicy(KvAwareConfig.defaults().withBlockSize(BS).withDiscountSharedPrefix(discount), index,
                new dev.caravan.policies.text.PseudoTokenizer(), null, new Random(42));
    }

    /** The 8-block prefix starting at token {@code prefix}, then {@code tail} tokens of their own from {@code own}. */
    private static int[] prompt(int prefix, int own, int tail) {
        int[] t = new int[PREFIX_TOKENS + tail];
        System.arraycopy(FakeEngine.tokens(prefix, PREFIX_TOKENS), 0, t, 0, PREFIX_TOKENS);
        System.arraycopy(FakeEngine.tokens(own, tail), 0, t, PREFIX_TOKENS, tail);
        return t;
    }

    private void holds(Worker w, int[] t, int blocks) {
        index.apply(w.id(), 0, new FakeEngine(w.id().hashCode(), BS).stored(t, 0, blocks));
    }

    private static SelectionContext request(int[] t) {
        return new SelectionContext(MODEL, "", t, Map.of());
    }

    @Test
    void aHotTenantsRequestsSpreadByLoadInsteadOfPilingOntoItsHolder() {
        Worker holder = workers.get(0);
        holds(holder, prompt(1, 0, 0), 8);
        KvAwarePolicy policy = policy(true);
        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // requests in flight: leases kept
            Decision d = policy.select(workers, request(prompt(1, 1_000 + 100 * i, 8)));
            d.acquire();
            decisions.add(d);
        }

        assertThat(decisions.get(0).worker()).isSameAs(holder);  // nothing counted yet: the holder's hit
        assertThat(decisions.get(0).branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
        assertThat(decisions.stream().map(Decision::worker).distinct()).hasSize(4);
        assertThat(decisions.subList(1, 4)).extracting(Decision::branch).containsOnly(KvAwarePolicy.BRANCH_SHARED);
    }

    @Test
    void withoutTheDiscountAHotTenantStaysOnItsHolder() {
        Worker holder = workers.get(0);
        holds(holder, prompt(1, 0, 0), 8);
        KvAwarePolicy policy = policy(false);
        for (int i = 0; i < 4; i++) {
            Decision d = policy.select(workers, request(prompt(1, 1_000 + 100 * i, 8)));
            d.acquire();
            assertThat(d.worker()).isSameAs(holder);
            assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
        }
    }

    @Test
    void newConversationsAfterACommonPreambleSpreadAndLaterTurnsStayOnTheirEngine() {
        KvAwarePolicy policy = policy(true);
        List<int[]> firstTurns = new ArrayList<>();
        List<Worker> engines = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            int[] turn1 = prompt(1, 1_000 + 100 * c, 12);                // preamble + 3 blocks of its own
            Decision d = policy.select(workers, request(turn1));
            d.acquire().release();
            holds(d.worker(), turn1, 11);                                // the engine now holds the first turn
            firstTurns.add(turn1);
            engines.add(d.worker());
        }
        assertThat(new HashSet<>(engines)).hasSize(4);                   // every engine serves a conversation

        for (int c = 0; c < 4; c++) {
            int[] turn2 = IntStream.concat(IntStream.of(firstTurns.get(c)),
                    IntStream.range(5_000 + 100 * c, 5_012 + 100 * c)).toArray();
            Decision d = policy.select(workers, request(turn2));
            d.acquire().release();
            assertThat(d.worker()).isSameAs(engines.get(c));
            assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_HIT);
        }
    }

    @Test
    void b2bTenantsBelowOneNthOfTheTrafficKeepTheirEngine() {
        KvAwarePolicy policy = policy(true);
        int tenants = 10;                                                // each 1/10 of the traffic, N = 4
        for (int t = 0; t < tenants; t++) {
            holds(workers.get(t % 4), prompt(10_000 * (t + 1), 0, 0), 8);
        }
        Set<String> branches = new HashSet<>();
        for (int round = 0; round < 5; round++) {
            for (int t = 0; t < tenants; t++) {
                Decision d = policy.select(workers, request(prompt(10_000 * (t + 1), 500_000 + 100 * (10 * round + t),
                        8)));
                d.acquire().release();
                assertThat(d.worker()).isSameAs(workers.get(t % 4));
                branches.add(d.branch());
            }
        }
        assertThat(branches).containsExactly(KvAwarePolicy.BRANCH_HIT);
    }

    @Test
    void theDiscountedScoreKeepsTheTierWeightsOfTheBlocksBeyondTheBranchPoint() {
        PrefixMatches.Match m = new PrefixMatches.Match(0, 10, 4, 4 + 6 * 0.8); // 4 GPU blocks, then 6 on the CPU

        assertThat(KvAwarePolicy.ownScore(m, 0)).isEqualTo(8.8, within(1e-9));
        assertThat(KvAwarePolicy.ownScore(m, 2)).isEqualTo(6.8, within(1e-9));
        assertThat(KvAwarePolicy.ownScore(m, 6)).isEqualTo(3.2, within(1e-9));
        assertThat(KvAwarePolicy.ownScore(m, 10)).isZero();
        assertThat(KvAwarePolicy.ownScore(null, 0)).isZero();
    }
}
