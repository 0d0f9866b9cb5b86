package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * cache_aware's {@code --discount-shared-prefix}: conversations that share only a long preamble spread over
 * the fleet, while each conversation's later turns stay on its worker.
 */
class CacheAwareSharedPrefixTest {

    /** 400 characters every conversation starts with: a match on it alone is a 0.8 match rate. */
    private static final String PREAMBLE = "You are the assistant of ACME; answer briefly and cite the handbook. "
            .repeat(6).substring(0, 400);

    private final List<Worker> workers = TestWorkers.of(4);

    private CacheAwarePolicy policy(CacheAwareConfig cfg) {
        CacheAwarePolicy p = new CacheAwarePolicy(cfg, PolicyEnvironment.seeded(1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private static String turn(int conversation, int turns) {
        StringBuilder sb = new StringBuilder(PREAMBLE).append("Conversation ").append(conversation).append(". ");
        for (int t = 1; t <= turns; t++) {
            sb.append("User turn ").append(t).append(" asks something. Assistant answers turn ").append(t).append(". ");
        }
        return sb.toString();
    }

    private static Decision send(CacheAwarePolicy p, List<Worker> w, String text) {
        return p.select(w, SelectionContext.ofText(text));
    }

    @Test
    void withoutTheDiscountEveryNewConversationHerdsOntoTheFirstWorkerThatSawThePreamble() {
        CacheAwarePolicy p = policy(CacheAwareConfig.sglang());
        for (int c = 0; c < 4; c++) {
            Decision d = send(p, workers, turn(c, 1));
            assertThat(d.worker()).isSameAs(workers.get(0));
            assertThat(d.branch()).isEqualTo(c == 0 ? "cache_miss_min_load" : "cache_hit");
        }
    }

    @Test
    void newConversationsMatchingOnlyThePreambleSpreadOverEveryWorker() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withDiscountSharedPrefix(true));
        List<String> branches = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            Decision d = send(p, workers, turn(c, 1));
            assertThat(d.worker()).isSameAs(workers.get(c)); // equal loads: fewer processed selections first
            branches.add(d.branch());
        }
        assertThat(branches).containsExactly("cache_miss_min_load", "cache_miss_shared_prefix",
                "cache_miss_shared_prefix", "cache_miss_shared_prefix");
    }

    @Test
    void laterTurnsOfEachConversationStayOnItsWorker() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withDiscountSharedPrefix(true));
        for (int c = 0; c < 4; c++) {
            send(p, workers, turn(c, 1));
        }
        for (int t = 2; t <= 5; t++) {
            for (int c = 0; c < 4; c++) {
                Decision d = send(p, workers, turn(c, t));
                assertThat(d.worker()).isSameAs(workers.get(c));
                assertThat(d.branch()).isEqualTo("cache_hit");
            }
        }
    }

    @Test
    void aLoneConversationKeepsItsWorkerAlthoughItCarriesAllTheTraffic() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withDiscountSharedPrefix(true));
        assertThat(send(p, workers, turn(7, 1)).worker()).isSameAs(workers.get(0));
        for (int t = 2; t <= 6; t++) {
            Decision d = send(p, workers, turn(7, t));
            assertThat(d.worker()).isSameAs(workers.get(0));
            assertThat(d.branch()).isEqualTo("cache_hit");
        }
    }

    @Test
    void underImbalanceAWorkerHoldingOnlyThePreambleIsNotPreferredAsCached() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withBalance(2, 1.5).withImbalancePreferCached(true)
                .withDiscountSharedPrefix(true));
        send(p, workers, turn(0, 1)); // w0
        send(p, workers, turn(1, 1)); // w1
        TestWorkers.load(workers.get(0), 1);
        TestWorkers.load(workers.get(1), 1);
        TestWorkers.load(workers.get(3), 9);
        // w0, w1 (load 1) and the empty w2 (load 0) are in the window; w1 holds conversation 1
        Decision own = send(p, workers, turn(1, 2));
        assertThat(own.worker()).isSameAs(workers.get(1));
        assertThat(own.branch()).isEqualTo("imbalanced_cached");
        // a new conversation matches only the preamble (on w0 and w1): the least-loaded w2, not the most cached w0
        Decision fresh = send(p, workers, turn(2, 1));
        assertThat(fresh.worker()).isSameAs(workers.get(2));
        assertThat(fresh.branch()).isEqualTo("imbalanced_min_load");
    }

    @Test
    void aTenantPromptCarryingLessThanOneWorkersShareOfTrafficStillRoutesByCache() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withDiscountSharedPrefix(true));
        List<Worker> first = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            first.add(send(p, workers, "Tenant " + t + " system prompt: " + "x".repeat(200) + " question 1").worker());
        }
        // tenant 3's prompt branches (a second question) but carries 1/9 of the traffic, under 1/4: a hit
        Decision again = send(p, workers, "Tenant 3 system prompt: " + "x".repeat(200) + " question 2");
        assertThat(again.worker()).isSameAs(first.get(3));
        assertThat(again.branch()).isEqualTo("cache_hit");
    }

    @Test
    void aHotTenantPromptCarryingMoreThanOneWorkersShareSpreadsItsRequests() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults().withDiscountSharedPrefix(true));
        String hot = "Hot tenant system prompt: " + "y".repeat(300);
        List<Worker> chosen = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            chosen.add(send(p, workers, hot + " question " + q).worker());
        }
        assertThat(chosen).containsExactlyElementsOf(workers);
    }
}
