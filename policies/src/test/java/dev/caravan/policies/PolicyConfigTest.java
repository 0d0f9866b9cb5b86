package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.ManualConfig.AssignmentMode;
import dev.caravan.policies.tree.OwnerRule;

class PolicyConfigTest {

    @Test
    void cacheAwareSglangConfigHasTheSglangPythonLauncherValues() {
        CacheAwareConfig c = CacheAwareConfig.sglang();
        assertThat(c.cacheThreshold()).isEqualTo(0.3);
        assertThat(c.balanceAbsThreshold()).isEqualTo(64);
        assertThat(c.balanceRelThreshold()).isEqualTo(1.5);
        assertThat(c.evictionInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.maxTreeSize()).isEqualTo(67_108_864L);
        assertThat(c.minPrefixMatchChars()).isZero();
        assertThat(c.imbalancePreferCached()).isFalse();
        assertThat(c.staleFallbackMinLoad()).isFalse();
        assertThat(c.discountSharedPrefix()).isFalse();
        assertThat(CacheAwareConfig.defaults()).as("Caravan's defaults: the measured exceptions only")
                .isEqualTo(c.withDiscountSharedPrefix(true).withMinPrefixMatchChars(4096).withRequestShareMargin(0.15));
        assertThat(c.prefillBacklogRatio()).isZero();
        assertThat(c.requestShareMargin()).isZero();
    }

    @Test
    void manualDefaultsAreSglangValuesExceptTheMeasuredAssignmentMode() {
        assertThat(ManualConfig.defaults()).isEqualTo(
                new ManualConfig(Duration.ofSeconds(60), Duration.ofSeconds(14_400), AssignmentMode.MIN_GROUP));
    }

    @Test
    void otherDefaultsAreSglangValues() {
        assertThat(BucketConfig.defaults()).isEqualTo(new BucketConfig(64, 1.5, Duration.ofSeconds(5)));
        assertThat(PrefixHashConfig.defaults()).isEqualTo(new PrefixHashConfig(256, 1.25));
    }

    @Test
    void resolvesNamesAndAliasesCaseInsensitively() {
        assertThat(PolicyConfig.fromOptions("RANDOM", Map.of())).isInstanceOf(RandomConfig.class);
        assertThat(PolicyConfig.fromOptions("round_robin", Map.of())).isInstanceOf(RoundRobinConfig.class);
        assertThat(PolicyConfig.fromOptions("RoundRobin", Map.of())).isInstanceOf(RoundRobinConfig.class);
        assertThat(PolicyConfig.fromOptions("power_of_two", Map.of())).isInstanceOf(PowerOfTwoConfig.class);
        assertThat(PolicyConfig.fromOptions("PowerOfTwo", Map.of())).isInstanceOf(PowerOfTwoConfig.class);
        assertThat(PolicyConfig.fromOptions("Cache_Aware", Map.of())).isInstanceOf(CacheAwareConfig.class);
        assertThat(PolicyConfig.fromOptions("cacheaware", Map.of())).isInstanceOf(CacheAwareConfig.class);
        assertThat(PolicyConfig.fromOptions("Bucket", Map.of())).isInstanceOf(BucketConfig.class);
        assertThat(PolicyConfig.fromOptions("manual", Map.of())).isInstanceOf(ManualConfig.class);
        assertThat(PolicyConfig.fromOptions("consistent_hashing", Map.of()))
                .isInstanceOf(ConsistentHashingConfig.class);
        assertThat(PolicyConfig.fromOptions("ConsistentHashing", Map.of()))
                .isInstanceOf(ConsistentHashingConfig.class);
        assertThat(PolicyConfig.fromOptions("prefix_hash", Map.of())).isInstanceOf(PrefixHashConfig.class);
        assertThat(PolicyConfig.fromOptions(" PrefixHash ", Map.of())).isInstanceOf(PrefixHashConfig.class);
    }

    @Test
    void policyNameIsCanonicalWhateverTheSpelling() {
        assertThat(PolicyConfig.fromOptions("RoundRobin", Map.of()).policyName()).isEqualTo("round_robin");
        assertThat(PolicyConfig.fromOptions("cacheaware", Map.of()).policyName()).isEqualTo("cache_aware");
    }

    @Test
    void unknownNameListsEveryValidName() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("least_load", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'least_load'")
                .hasMessageContaining("random, round_robin|roundrobin, power_of_two|poweroftwo, "
                        + "cache_aware|cacheaware, bucket, manual, consistent_hashing|consistenthashing, "
                        + "prefix_hash|prefixhash, bounded_consistent_hashing|boundedconsistenthashing, kv_aware|kvaware");
        assertThatThrownBy(() -> PolicyConfig.fromOptions(null, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown policy");
    }

    @Test
    void readsEveryCacheAwareOptionByCliFlagName() {
        PolicyConfig c = PolicyConfig.fromOptions("cache_aware", Map.of(
                "cache-threshold", "0.5", "balance-abs-threshold", "32", "balance-rel-threshold", "1.1",
                "eviction-interval", "120", "max-tree-size", "10000", "min-prefix-match-chars", "4096",
                "imbalance-prefer-cached", "true", "stale-fallback-min-load", "TRUE", "shared-prefix-owner", "Latest"));
        assertThat(c).isEqualTo(new CacheAwareConfig(0.5, 32, 1.1, Duration.ofSeconds(120), 10_000, 4096, true,
                true).withSharedPrefixOwner(OwnerRule.LATEST)
                .withDiscountSharedPrefix(CacheAwareConfig.DEFAULT_DISCOUNT_SHARED_PREFIX)
                .withPrefillBacklogRatio(CacheAwareConfig.DEFAULT_PREFILL_BACKLOG_RATIO)
                .withRequestShareMargin(CacheAwareConfig.DEFAULT_REQUEST_SHARE_MARGIN));
    }

    @Test
    void readsTheRequestShareMarginOnByDefaultOffForSglangAndRejectsANegativeOne() {
        assertThat(CacheAwareConfig.defaults().requestShareMargin()).isEqualTo(0.15);
        assertThat(CacheAwareConfig.sglang().requestShareMargin()).isZero();
        assertThat(PolicyConfig.fromOptions("cache_aware", Map.of("request-share-margin", "0.25")))
                .isEqualTo(CacheAwareConfig.defaults().withRequestShareMargin(0.25));
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withRequestShareMargin(-0.1))
                .hasMessage("requestShareMargin (request-share-margin) must be a finite number >= 0, was -0.1");
    }

    @Test
    void readsThePrefillBacklogRatioAndRejectsRatiosBetweenZeroAndOne() {
        assertThat(PolicyConfig.fromOptions("cache_aware", Map.of("prefill-backlog-ratio", "1.25")))
                .isEqualTo(CacheAwareConfig.defaults().withPrefillBacklogRatio(1.25));
        assertThat(PolicyConfig.fromOptions("cache_aware", Map.of("prefill-backlog-ratio", "0")))
                .isEqualTo(CacheAwareConfig.defaults().withPrefillBacklogRatio(0));
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withPrefillBacklogRatio(0.5))
                .hasMessage("prefillBacklogRatio (prefill-backlog-ratio) must be 0 (off) or at least 1, was 0.5");
    }

    @Test
    void readsThePlacementOptionsWithTheDiscountOnByDefaultAndSglangsRuleOnRequest() {
        assertThat(CacheAwareConfig.defaults().discountSharedPrefix()).isTrue();
        assertThat(CacheAwareConfig.defaults().minLoadTieBreak()).isEqualTo(MinLoadTieBreak.PROCESSED);
        assertThat(CacheAwareConfig.sglang().discountSharedPrefix()).isFalse();
        PolicyConfig c = PolicyConfig.fromOptions("cache_aware", Map.of("discount-shared-prefix", "false",
                "min-load-tie-break", "Footprint", "min-prefix-match-chars", "0", "prefill-backlog-ratio", "0",
                "request-share-margin", "0"));
        assertThat(c).isEqualTo(CacheAwareConfig.sglang().withMinLoadTieBreak(MinLoadTieBreak.FOOTPRINT));
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("min-load-tie-break", "order")))
                .hasMessage("option min-load-tie-break must be processed or footprint, was 'order'");
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withMinLoadTieBreak(null))
                .isInstanceOf(NullPointerException.class).hasMessage("minLoadTieBreak");
    }

    @Test
    void readsTheOneOffSinkShareOffByDefaultAndRejectsAShareOfOne() {
        assertThat(CacheAwareConfig.defaults().oneOffSinkShare()).isZero();
        assertThat(PolicyConfig.fromOptions("cache_aware", Map.of("one-off-sink-share", "0.25")))
                .isEqualTo(CacheAwareConfig.defaults().withOneOffSinkShare(0.25));
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("one-off-sink-share", "1")))
                .hasMessage("oneOffSinkShare (one-off-sink-share) must be below 1, was 1.0");
    }

    @Test
    void sharedPrefixOwnerDefaultsToSglangsFirstOwnerAndRejectsOtherValues() {
        assertThat(CacheAwareConfig.defaults().sharedPrefixOwner()).isEqualTo(OwnerRule.FIRST);
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("shared-prefix-owner", "newest")))
                .hasMessage("option shared-prefix-owner must be first or latest, was 'newest'");
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withSharedPrefixOwner(null))
                .isInstanceOf(NullPointerException.class).hasMessage("sharedPrefixOwner");
    }

    @Test
    void readsTheEngineLoadGuardOptionsOffByDefault() {
        assertThat(CacheAwareConfig.defaults().balanceEngineLoad()).isFalse();
        assertThat(CacheAwareConfig.defaults().engineLoadMaxAge()).isEqualTo(Duration.ofSeconds(10));
        CacheAwareConfig c = (CacheAwareConfig) PolicyConfig.fromOptions("cache_aware", Map.of(
                "balance-engine-load", "true", "engine-load-max-age", "4"));
        assertThat(c.balanceEngineLoad()).isTrue();
        assertThat(c.engineLoadMaxAge()).isEqualTo(Duration.ofSeconds(4));
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withBalanceEngineLoad(true, Duration.ofSeconds(-2)))
                .hasMessage("engineLoadMaxAge (engine-load-max-age) must be >= 0 seconds, was -2s");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("balance-engine-load", "yes")))
                .hasMessage("option balance-engine-load must be true or false, was 'yes'");
    }

    @Test
    void acceptsDashedUnderscoredAndSecsSuffixedKeys() {
        PolicyConfig c = PolicyConfig.fromOptions("cache_aware", Map.of(
                "--cache_threshold", "0.4", "eviction_interval_secs", "30"));
        assertThat(((CacheAwareConfig) c).cacheThreshold()).isEqualTo(0.4);
        assertThat(((CacheAwareConfig) c).evictionInterval()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void missingOrBlankOptionsTakeDefaultsAndUnusedKeysAreIgnored() {
        PolicyConfig c = PolicyConfig.fromOptions("cache_aware", Map.of("cache-threshold", " ",
                "assignment-mode", "nonsense", "load-factor", "x"));
        assertThat(c).isEqualTo(CacheAwareConfig.defaults());
    }

    @Test
    void readsManualBucketAndPrefixHashOptions() {
        assertThat(PolicyConfig.fromOptions("manual", Map.of("eviction-interval", "2", "max-idle-secs", "3",
                "assignment-mode", "MIN_GROUP")))
                .isEqualTo(new ManualConfig(Duration.ofSeconds(2), Duration.ofSeconds(3), AssignmentMode.MIN_GROUP));
        assertThat(PolicyConfig.fromOptions("bucket", Map.of("balance-abs-threshold", "32",
                "balance-rel-threshold", "1.0001", "bucket-adjust-interval", "10")))
                .isEqualTo(new BucketConfig(32, 1.0001, Duration.ofSeconds(10)));
        assertThat(PolicyConfig.fromOptions("prefix_hash", Map.of("prefix-token-count", "5", "load-factor", "2")))
                .isEqualTo(new PrefixHashConfig(5, 2.0));
    }

    @Test
    void maxTreeSizeAutoParsesToTheDefaultForTheGatewayToCalibrate() {
        CacheAwareConfig c = (CacheAwareConfig) PolicyConfig.fromOptions("cache_aware", Map.of("max-tree-size", "AUTO"));
        assertThat(c.maxTreeSize()).isEqualTo(CacheAwareConfig.DEFAULT_MAX_TREE_SIZE);
    }

    @Test
    void unparseableNumberNamesKeyAndValue() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("cache-threshold", "high")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("option cache-threshold must be a number, was 'high'");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("max-tree-size", "1e6")))
                .hasMessage("option max-tree-size must be a whole number, was '1e6'");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("eviction-interval", "1.5")))
                .hasMessage("option eviction-interval must be a whole number of seconds, was '1.5'");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("imbalance-prefer-cached", "yes")))
                .hasMessage("option imbalance-prefer-cached must be true or false, was 'yes'");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("manual", Map.of("assignment-mode", "sticky")))
                .hasMessage("option assignment-mode must be one of random, min_load, min_group, was 'sticky'");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware",
                Map.of("balance-abs-threshold", "99999999999")))
                .hasMessageContaining("balance-abs-threshold").hasMessageContaining("99999999999");
    }

    @Test
    void outOfRangeOptionNamesKeyAndValue() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("cache-threshold", "1.5")))
                .hasMessage("cacheThreshold (cache-threshold) must be in [0,1], was 1.5");
    }

    // One test per validated component.

    @Test
    void rejectsCacheThresholdAboveOne() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withCacheThreshold(1.01))
                .hasMessage("cacheThreshold (cache-threshold) must be in [0,1], was 1.01");
    }

    @Test
    void rejectsCacheThresholdNaN() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withCacheThreshold(Double.NaN))
                .hasMessage("cacheThreshold (cache-threshold) must be in [0,1], was NaN");
    }

    @Test
    void rejectsNegativeBalanceAbsThreshold() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withBalance(-1, 1.5))
                .hasMessage("balanceAbsThreshold (balance-abs-threshold) must be >= 0, was -1");
    }

    @Test
    void rejectsNegativeBalanceRelThreshold() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withBalance(64, -0.5))
                .hasMessage("balanceRelThreshold (balance-rel-threshold) must be a finite number >= 0, was -0.5");
    }

    @Test
    void rejectsInfiniteBalanceRelThreshold() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withBalance(64, Double.POSITIVE_INFINITY))
                .hasMessageContaining("balanceRelThreshold (balance-rel-threshold)").hasMessageContaining("Infinity");
    }

    @Test
    void rejectsNegativeEvictionInterval() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", Map.of("eviction-interval", "-1")))
                .hasMessage("evictionInterval (eviction-interval) must be >= 0 seconds, was -1s");
    }

    @Test
    void rejectsZeroMaxTreeSize() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withMaxTreeSize(0))
                .hasMessage("maxTreeSize (max-tree-size) must be >= 1, was 0");
    }

    @Test
    void rejectsNegativeMinPrefixMatchChars() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withMinPrefixMatchChars(-5))
                .hasMessage("minPrefixMatchChars (min-prefix-match-chars) must be >= 0, was -5");
    }

    @Test
    void rejectsNullEvictionInterval() {
        assertThatThrownBy(() -> new CacheAwareConfig(0.3, 64, 1.5, null, 10, 0, false, false))
                .isInstanceOf(NullPointerException.class).hasMessage("evictionInterval");
    }

    @Test
    void rejectsNegativeBucketAbsThreshold() {
        assertThatThrownBy(() -> new BucketConfig(-3, 1.5, Duration.ofSeconds(5)))
                .hasMessage("balanceAbsThreshold (balance-abs-threshold) must be >= 0, was -3");
    }

    @Test
    void rejectsNaNBucketRelThreshold() {
        assertThatThrownBy(() -> new BucketConfig(64, Double.NaN, Duration.ofSeconds(5)))
                .hasMessage("balanceRelThreshold (balance-rel-threshold) must be a finite number >= 0, was NaN");
    }

    @Test
    void rejectsZeroBucketAdjustInterval() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("bucket", Map.of("bucket-adjust-interval", "0")))
                .hasMessage("bucketAdjustInterval (bucket-adjust-interval) must be > 0 seconds, was 0s");
    }

    @Test
    void rejectsNegativeManualEvictionInterval() {
        assertThatThrownBy(() -> new ManualConfig(Duration.ofSeconds(-1), Duration.ofSeconds(1), AssignmentMode.RANDOM))
                .hasMessage("evictionInterval (eviction-interval) must be >= 0 seconds, was -1s");
    }

    @Test
    void rejectsNegativeManualMaxIdle() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("manual", Map.of("max-idle-secs", "-7")))
                .hasMessage("maxIdle (max-idle-secs) must be >= 0 seconds, was -7s");
    }

    @Test
    void rejectsNullAssignmentMode() {
        assertThatThrownBy(() -> new ManualConfig(Duration.ZERO, Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class).hasMessage("assignmentMode");
    }

    @Test
    void rejectsZeroPrefixTokenCount() {
        assertThatThrownBy(() -> PolicyConfig.fromOptions("prefix_hash", Map.of("prefix-token-count", "0")))
                .hasMessage("prefixTokenCount (prefix-token-count) must be >= 1, was 0");
    }

    @Test
    void rejectsNonPositiveLoadFactor() {
        assertThatThrownBy(() -> new PrefixHashConfig(256, 0.0))
                .hasMessage("loadFactor (load-factor) must be a finite number > 0, was 0.0");
    }

    @Test
    void manualTtlIsDisabledWhenEitherDurationIsZero() {
        assertThat(ManualConfig.defaults().ttlEnabled()).isTrue();
        assertThat(new ManualConfig(Duration.ZERO, Duration.ofSeconds(3600), AssignmentMode.RANDOM).ttlEnabled())
                .isFalse();
        assertThat(new ManualConfig(Duration.ofSeconds(60), Duration.ZERO, AssignmentMode.RANDOM).ttlEnabled())
                .isFalse();
    }
}
