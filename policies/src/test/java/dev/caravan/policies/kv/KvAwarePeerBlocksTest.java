package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.text.PseudoTokenizer;

/** kv_aware with replica sync: the other replicas' in-flight blocks weigh on the decode term, and its own are reported. */
class KvAwarePeerBlocksTest {

    private static final int BS = 4;
    private final KvBlockIndex index = new KvBlockIndex();
    private final PeerActiveBlocks peers = new PeerActiveBlocks();
    private final Worker w1 = Worker.builder("http://w1:8000").id("w1").modelId("m").build();
    private final Worker w2 = Worker.builder("http://w2:8000").id("w2").modelId("m").build();
    /** 40 tokens = 10 blocks of 4. */
    private final int[] tokens = FakeEngine.tokens(1, 40);

    private KvAwarePolicy policy() {
        return new KvAwarePolicy(KvAwareConfig.defaults().withOverlapWeight(2).withBlockSize(BS), index,
                new PseudoTokenizer(), null, new Random(7), peers);
    }

    private SelectionContext request() {
        return new SelectionContext("m", "", tokens, Map.of());
    }

    @Test
    void theHolderLosesTheRequestWhenThePeersKeepItBusierThanThePrefillItSaves() {
        index.apply("w1", 0, new FakeEngine(1, BS).stored(tokens, 0, 8));   // w1 holds 8 of 10 blocks
        KvAwarePolicy p = policy();

        // alone: w1 costs 2 x 2 + (10 + 1) = 15 against w2's 2 x 10 + (10 + 1) = 31
        assertThat(p.select(List.of(w1, w2), request()).worker()).isSameAs(w1);

        peers.setPeers(Map.of("w1", 20));                                   // other replicas keep 20 blocks busy on w1
        Decision d = p.select(List.of(w1, w2), request());

        assertThat(d.worker()).isSameAs(w2);
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
    }

    @Test
    void reportsItsOwnInFlightBlocksToThePeersUntilReleased() {
        KvAwarePolicy p = policy();

        Decision d = p.select(List.of(w1), request());

        assertThat(peers.local()).isEqualTo(Map.of("w1", 11));              // 10 blocks + the request's tail
        d.onRelease().run();
        assertThat(peers.local()).isEqualTo(Map.of("w1", 0));
    }
}
