package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.HitGranularity;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/** cache_aware's match cut to the engine's hit granularity before the hit test, per model. */
class CacheAwareHitGranularityTest {

    private static final String PREAMBLE = "p".repeat(1_000);

    private static String branch(CacheAwareConfig cfg, String model) {
        List<Worker> w = TestWorkers.of(2, model);
        CacheAwarePolicy p = new CacheAwarePolicy(cfg.withMinPrefixMatchChars(0).withDiscountSharedPrefix(false), PolicyEnvironment.seeded(1));
        w.forEach(p::onWorkerAdded);
        p.select(w, new SelectionContext(model, PREAMBLE + "first question", null, Map.of()));
        return p.select(w, new SelectionContext(model, PREAMBLE + "another one", null, Map.of())).branch();
    }

    @Test
    void aMatchShorterThanTheModelsGranularityIsAMiss() {
        CacheAwareConfig cfg = CacheAwareConfig.defaults().withHitGranularity(HitGranularity.parse("qwen3.5=2112"));

        assertThat(branch(cfg, "qwen3.5")).startsWith("cache_miss");
        assertThat(branch(cfg, "llama")).isEqualTo("cache_hit");
        assertThat(branch(CacheAwareConfig.defaults(), "qwen3.5")).isEqualTo("cache_hit");
    }

    @Test
    void theGranularityParsesPerModelWithADefaultAndNamesWhatIsWrong() {
        HitGranularity g = HitGranularity.parse("qwen3.5=2112; 64");

        assertThat(g.round("qwen3.5", 5000)).isEqualTo(4224);
        assertThat(g.round("other", 100)).isEqualTo(64);
        assertThat(HitGranularity.parse("").round("any", 77)).isEqualTo(77);
        assertThat(((CacheAwareConfig) PolicyConfig.fromOptions("cache_aware",
                Map.of(PolicyConfig.HIT_GRANULARITY_CHARS, "m=10"))).hitGranularity().round("m", 25)).isEqualTo(20);
        assertThatThrownBy(() -> HitGranularity.parse("m=x")).hasMessageContaining("must be an integer");
        assertThatThrownBy(() -> HitGranularity.parse("0")).hasMessageContaining(">= 1");
    }
}
