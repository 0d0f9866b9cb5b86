package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.FlagType;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.ValueRange;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;

/**
 * The flag rows are the rule; the feature config records only keep invariants. So every value a row accepts must
 * build the records: here every ranged row at the ends of its range, all at once (so that rules spanning two settings,
 * such as max backoff >= initial backoff, hold too).
 */
class FeatureConfigBoundsTest {

    private static GatewayConfig everyRangedRowAt(Function<CaravanFlag, BigDecimal> end) {
        GatewayConfig config = GatewayConfig.defaults();
        for (CaravanFlag f : CaravanFlags.all()) {
            if (f.range() != null) {
                BigDecimal v = end.apply(f);
                config = config.with(f, f.type() == FlagType.DOUBLE ? v.toString() : v.toBigInteger().toString());
            }
        }
        return config;
    }

    private static BigDecimal upper(CaravanFlag f) {
        ValueRange r = f.range();
        if (r.max() != null) {
            return r.max();
        }
        return switch (f.type()) {
            case INT -> BigDecimal.valueOf(Integer.MAX_VALUE);
            case LONG -> BigDecimal.valueOf(Long.MAX_VALUE);
            default -> BigDecimal.valueOf(Double.MAX_VALUE);
        };
    }

    private static void buildsEveryFeatureConfig(GatewayConfig config) {
        assertThat(ReliabilityFeature.breakerConfig(config)).isNotNull();
        assertThat(ReliabilityFeature.retryConfig(config)).isNotNull();
        assertThat(FlowFeature.admissionConfig(config)).isNotNull();
        assertThat(HealthFeature.healthConfig(config)).isNotNull();
        assertThat(KvFeature.settings(config)).isNotNull();
        assertThat(PdFeature.pdConfig(config)).isNotNull();
    }

    @Test
    void everyRowAtTheLowEndOfItsRangeBuildsTheFeatureConfigs() {
        GatewayConfig low = everyRangedRowAt(f -> f.range().min());
        assertThat(low.getInt(ReliabilityFeature.RETRY_MAX_RETRIES)).isEqualTo(1);
        buildsEveryFeatureConfig(low);
    }

    @Test
    void everyRowAtTheHighEndOfItsRangeBuildsTheFeatureConfigs() {
        GatewayConfig high = everyRangedRowAt(FeatureConfigBoundsTest::upper);
        assertThat(high.getInt(ReliabilityFeature.RETRY_MAX_RETRIES)).isEqualTo(100);
        buildsEveryFeatureConfig(high);
    }
}
