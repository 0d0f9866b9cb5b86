package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.text.PseudoTokenizer;

class ParityFallbackPolicyTest {

    private static final String MODEL = "m";
    private final AtomicLong now = new AtomicLong();
    private final ParityTracker parity = new ParityTracker(new ParityConfig(Duration.ofSeconds(1), 10, 0.9, 10, 1000),
            now::get);
    private final KvBlockIndex index = new KvBlockIndex();
    private final List<Worker> workers = List.of(worker("w1"), worker("w2"), worker("w3"));
    private final ParityFallbackPolicy policy = new ParityFallbackPolicy(
            new KvAwarePolicy(KvAwareConfig.defaults().withBlockSize(4), index, new PseudoTokenizer(), parity,
                    new Random(1)),
            PolicyFactory.create(PolicyConfig.fromOptions("cache_aware", Map.of()), PolicyEnvironment.seeded(1)),
            parity, 8);

    ParityFallbackPolicyTest() {
        workers.forEach(policy::onWorkerAdded);
    }

    private static Worker worker(String id) {
        return Worker.builder("http://" + id + ":8000").id(id).modelId(MODEL).build();
    }

    private static SelectionContext request(String text) {
        return new SelectionContext(MODEL, text, null, Map.of());
    }

    /** Ten predictions of an unrelated worker expire unconfirmed: recent agreement 0 over a full window. */
    private void degrade() {
        parity.expect("elsewhere", LongStream.range(1_000, 1_010).toArray());
        now.addAndGet(Duration.ofSeconds(2).toNanos());
        parity.snapshot();
    }

    @Test
    void routesByKvAwareWhileItsPredictionsAgreeWithTheEngines() {
        Decision d = policy.select(workers, request("a prompt of some length"));

        assertThat(d.policy()).isEqualTo("kv_aware");
        assertThat(d.branch()).isEqualTo(KvAwarePolicy.BRANCH_MISS);
        assertThat(parity.degraded()).isFalse();
    }

    @Test
    void whileDegradedTheTreeDecidesSevenRequestsInEightAndKeepsAConversationOnItsWorker() {
        degrade();
        assertThat(parity.degraded()).isTrue();
        List<String> branches = new ArrayList<>();
        Set<String> fallbackWorkers = new HashSet<>();
        StringBuilder conversation = new StringBuilder("You are terse. ".repeat(10));
        for (int turn = 0; turn < 16; turn++) {
            conversation.append("turn ").append(turn).append(". ");
            Decision d = policy.select(workers, request(conversation.toString()));
            if (d.onRelease() != null) {
                d.onRelease().run();
            }
            branches.add(d.branch());
            if (d.branch().equals(ParityFallbackPolicy.BRANCH_FALLBACK)) {
                fallbackWorkers.add(d.worker().id());
            }
        }

        assertThat(branches.stream().filter(ParityFallbackPolicy.BRANCH_FALLBACK::equals).count()).isEqualTo(14);
        assertThat(branches.get(7)).startsWith("kv_");
        assertThat(branches.get(15)).startsWith("kv_");
        assertThat(fallbackWorkers).hasSize(1);
    }

    @Test
    void theFallbackEndsOnceTheProbesPredictionsAreConfirmedAgain() {
        degrade();
        long[] confirmed = LongStream.range(2_000, 2_010).toArray();
        parity.expect("w1", confirmed);
        parity.observe("w1", confirmed); // ten matches fill the window

        assertThat(parity.degraded()).isFalse();
        assertThat(policy.select(workers, request("another prompt")).branch()).startsWith("kv_");
    }

    @Test
    void refusesAFallbackWithoutATree() {
        assertThatThrownBy(() -> new ParityFallbackPolicy(new KvAwarePolicy(KvAwareConfig.defaults(), index,
                new PseudoTokenizer(), parity, new Random(1)), PolicyFactory.create(PolicyConfig.fromOptions(
                "round_robin", Map.of()), PolicyEnvironment.seeded(1)), parity, 8))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("round_robin");
    }
}
