package dev.caravan.processors.quality;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvEvent;
import dev.caravan.policies.kv.KvGroundTruth;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.tokens.KvTokenizers;
import dev.caravan.processors.routing.PolicyRegistry;

/** Which source says what each worker held, when the live policy has none of its own. */
class PrefixOracleTest {

    /** 64 pseudo tokens (4 characters each): 4 blocks of 16. */
    private static final String TEXT = "abcd".repeat(64);

    private final WorkerRegistry workers = new WorkerRegistry();
    private final Worker a = workers.add(Worker.builder("http://a:1").id("a").build());
    private final Worker b = workers.add(Worker.builder("http://b:1").id("b").build());
    private final KvBlockIndex index = new KvBlockIndex();
    private final PolicyEnvironment env = PolicyEnvironment.seeded(3)
            .withKv(new KvGroundTruth(index, null, new KvTokenizers(false)));
    private final PolicyRegistry live = registry("round_robin");

    private PolicyRegistry registry(String policy) {
        PolicyConfig config = PolicyConfig.fromOptions(policy, Map.of());
        return new PolicyRegistry(workers, WorkerRole.REGULAR, m -> PolicyFactory.create(config, env), false);
    }

    private HeldPrefixes held(ShadowPolicies shadows) {
        PolicyRegistry.Pool pool = live.poolFor(null);
        return new PrefixOracle(shadows).held(pool, List.of(a, b), new SelectionContext(pool.model(), TEXT, null,
                Map.of()));
    }

    @Test
    void aLivePolicyWithoutGroundTruthIsScoredByAKvAwareShadowsIndex() {
        int[] tokens = new PseudoTokenizer().encode(TEXT);
        index.apply("b", 0, KvEvent.BlockStored.of(new long[] {11, 12}, null, Arrays.copyOf(tokens, 32), 16));
        ShadowPolicies shadows = new ShadowPolicies(List.of(new ShadowPolicies.Shadow("round_robin",
                registry("round_robin")), new ShadowPolicies.Shadow("kv_aware", registry("kv_aware"))));

        HeldPrefixes held = held(shadows);

        assertThat(held.unit()).isEqualTo(HeldPrefixes.Unit.TOKENS);
        assertThat(held.requestSize()).isEqualTo(64);
        assertThat(held.byWorker()).isEqualTo(Map.of(b.url(), 32L));
    }

    @Test
    void withoutAnySourceNothingIsKnown() {
        ShadowPolicies shadows = new ShadowPolicies(List.of(new ShadowPolicies.Shadow("cache_aware",
                registry("cache_aware"))));

        assertThat(held(shadows)).isNull(); // a shadow's own tree holds its own picks, not the engines' caches
    }
}
