package dev.caravan.bench.whatif;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.PolicySpec;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.sim.SimConfig;

/** The what-if replay sizes tree budgets as the gateway does with {@code --max-tree-size auto}. */
class EngineSizedTreeBudgetTest {

    private final SimConfig engine = SimConfig.builder().kvCapacityTokens(216_256).build();

    @Test
    void autoIsTheEnginesKvCapacityTimesFourCharactersPerToken() {
        assertThat(WhatIfRunner.engineSizedTreeBudget(PolicySpec.parse("cache_aware:max-tree-size=auto"), engine))
                .isEqualTo(865_024);
    }

    @Test
    void autoFollowsKvCharsPerToken() {
        assertThat(WhatIfRunner.engineSizedTreeBudget(
                PolicySpec.parse("cache_aware:max-tree-size=auto:kv-chars-per-token=3"), engine)).isEqualTo(648_768);
    }

    @Test
    void aNumberIsNoEngineSizedBudget() {
        assertThat(WhatIfRunner.engineSizedTreeBudget(PolicySpec.parse("cache_aware:max-tree-size=67108864"), engine))
                .isZero();
    }

    @Test
    void noOptionMeasuresTheGatewaysDefault() {
        long expected = RoutingFeature.AUTO.equals(RoutingFeature.MAX_TREE_SIZE.defaultValue()) ? 865_024 : 0;
        assertThat(WhatIfRunner.engineSizedTreeBudget(PolicySpec.parse("cache_aware"), engine)).isEqualTo(expected);
    }
}
