package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.text.PseudoTokenizer;

/** kv_aware on a hybrid model's engines: what it expects, and where it sends a prefix no engine can serve. */
class KvAwareHybridTest {

    private static final String MODEL = "m";
    private static final int BS = 4;
    private final KvBlockIndex index = new KvBlockIndex();
    private final Worker w1 = worker("w1");
    private final Worker w2 = worker("w2");
    /** 8 blocks of 4 tokens, and one more. */
    private final int[] tokens = FakeEngine.tokens(1, 33);

    private static Worker worker(String id) {
        return Worker.builder("http://" + id + ":8000").id(id).modelId(MODEL).build();
    }

    private KvAwarePolicy policy(double stateAffinity) {
        return new KvAwarePolicy(KvAwareConfig.defaults().withBlockSize(BS).withStateAffinity(stateAffinity), index,
                new PseudoTokenizer(), null, new Random(42));
    }

    /** The worker's engine holds blocks [0, 8) in full attention and a Mamba state after each block in {@code states}. */
    private void holds(Worker w, int... states) {
        FakeEngine e = new FakeEngine(w.id().hashCode(), BS);
        index.apply(w.id(), 0, e.stored(tokens, 0, 8, "GPU", 0, "full_attention"));
        long[] ids = Arrays.stream(states).mapToLong(b -> e.id(tokens, b)).toArray();
        index.apply(w.id(), 0, new KvEvent.BlockStored(ids, null, Arrays.copyOf(tokens, 8 * BS), BS, "GPU", null, null,
                null, 1, "mamba", null));
    }

    private static SelectionContext request(int[] t) {
        return new SelectionContext(MODEL, "", t, Map.of());
    }

    @Test
    void theExpectedTokensAreWhatEveryGroupServesAndTheFullAttentionRunIsKeptBeside() {
        holds(w1, 2);

        HeldPrefixes held = policy(0.5).held(List.of(w1, w2), request(tokens));

        assertThat(held.held(w1.url())).isEqualTo(12);
        assertThat(held.heldByFullAttention(w1.url())).isEqualTo(32);
        assertThat(held.heldByFullAttention(w2.url())).isZero();
        assertThat(held.layout(w1.url())).isEqualTo("full+mamba");
    }

    @Test
    void aPrefixNoEngineCanServeStaysWithTheEngineHoldingItsBlocks() {
        holds(w1); // full attention holds all 8 blocks, but no state: nothing is served anywhere
        int[] other = FakeEngine.tokens(1_000, 33);
        index.apply(w2.id(), 0, new FakeEngine(2, BS).stored(other, 0, 1)); // w2 holds less: it looks emptier

        Decision sticky = policy(0.5).select(List.of(w1, w2), request(tokens));
        Decision byLoad = policy(0).select(List.of(w1, w2), request(tokens));

        assertThat(sticky.worker()).isSameAs(w1);
        assertThat(sticky.branch()).isEqualTo("kv_miss_min_cost");
        assertThat(byLoad.worker()).isSameAs(w2);
    }
}
