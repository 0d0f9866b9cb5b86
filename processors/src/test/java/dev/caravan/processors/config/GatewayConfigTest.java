package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.PolicyConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.routing.RoutingFeature;

class GatewayConfigTest {

    @Test
    void everyRowHasItsDefault() {
        GatewayConfig c = GatewayConfig.defaults();
        for (CaravanFlag f : CaravanFlags.all()) {
            assertThat(c.get(f)).as(f.key()).isEqualTo(f.defaultValue());
        }
        assertThat(c.requestTimeout()).isEqualTo(Duration.ofSeconds(1800));
        assertThat(c.maxPayloadSize()).isEqualTo(512L * 1024 * 1024);
        assertThat(c.apiKey()).isNull();
        assertThat(c.decisionHeaders()).isFalse();
        assertThat(c.dispatchOnEventLoop()).isTrue();
    }

    @Test
    void sglangDefaultsGiveEveryDifferingRowSglangsValueWhileGivenValuesWin() {
        GatewayConfig caravan = GatewayConfig.defaults().with(FlowFeature.MAX_CONCURRENT_REQUESTS, "64");
        assertThat(caravan.getInt(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND)).isEqualTo(-1);

        GatewayConfig sglang = caravan.with(CoreFlags.SGLANG_DEFAULTS, "true");
        assertThat(sglang.getInt(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND)).as("SGLang: --max-concurrent-requests")
                .isEqualTo(64);
        assertThat(sglang.with(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND, "10")
                .getInt(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND)).isEqualTo(10);
        assertThat(GatewayConfig.defaults().with(CoreFlags.SGLANG_DEFAULTS, "true")
                .getInt(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND)).as("unlimited slots: no rate").isEqualTo(-1);
        assertThat(sglang.with(CoreFlags.SGLANG_DEFAULTS, "false")
                .getInt(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND)).isEqualTo(-1);
        for (CaravanFlag f : CaravanFlags.all()) {
            if (f.sglang() != null && f.sglang().reference() == null) {
                assertThat(sglang.get(f)).as(f.flag()).isEqualTo(f.canonical(f.sglang().value()));
            } else if (f.sglang() == null && f != CoreFlags.SGLANG_DEFAULTS) {
                assertThat(sglang.get(f)).as(f.flag()).isEqualTo(caravan.get(f));
            }
        }
    }

    @Test
    void policyOptionsAreKeyedByFlagNameWithoutDashes() {
        GatewayConfig c = GatewayConfig.of(Map.of("caravan.policy.cache-threshold", "0.7", "caravan.port", "1"));
        assertThat(c.policyOptions()).containsEntry("cache-threshold", "0.7").doesNotContainKey("name")
                .containsEntry("balance-abs-threshold", "64");
    }

    @Test
    void engineLoadMaxAgeIsTwiceTheLoadPollIntervalUnlessSet() {
        assertThat(GatewayConfig.defaults().policyOptions()).containsEntry("engine-load-max-age", "10");
        assertThat(GatewayConfig.defaults().with(CoreFlags.LOAD_CHECK_INTERVAL, "3").policyOptions())
                .containsEntry("engine-load-max-age", "6");
        assertThat(GatewayConfig.defaults().with(CoreFlags.LOAD_CHECK_INTERVAL, "0").policyOptions())
                .containsEntry("engine-load-max-age", "0");
        assertThat(GatewayConfig.of(Map.of("caravan.policy.engine-load-max-age", "30")).policyOptions())
                .containsEntry("engine-load-max-age", "30");
    }

    @Test
    void rejectsPortAbove65535NamingFlagPropertyRuleAndValue() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CoreFlags.PORT, "70000"))
                .hasMessage("--port (caravan.port) must be an integer in [0, 65535], was '70000'");
    }

    @Test
    void maxTreeSizeIsAutoOrAWholeNumberWhoseRangeTheCacheAwareRecordChecks() {
        GatewayConfig auto = GatewayConfig.defaults().with(RoutingFeature.MAX_TREE_SIZE, "AUTO");
        assertThat(auto.get(RoutingFeature.MAX_TREE_SIZE)).isEqualTo("auto");
        assertThat(auto.policyOptions()).containsEntry("max-tree-size", "auto");
        assertThat(GatewayConfig.defaults().with(RoutingFeature.MAX_TREE_SIZE, "10000").getLong(RoutingFeature.MAX_TREE_SIZE))
                .isEqualTo(10_000);
        assertThatThrownBy(() -> GatewayConfig.defaults().with(RoutingFeature.MAX_TREE_SIZE, "big"))
                .hasMessage("--max-tree-size (caravan.policy.max-tree-size) must be auto (per worker from its "
                        + "engine's KV capacity) or an integer, was 'big'");
        GatewayConfig zero = GatewayConfig.defaults().with(RoutingFeature.MAX_TREE_SIZE, "0");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("cache_aware", zero.policyOptions()))
                .hasMessage("maxTreeSize (max-tree-size) must be >= 1, was 0");
    }

    @Test
    void rejectsNonPositivePayloadSize() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CoreFlags.MAX_PAYLOAD_SIZE, "0"))
                .hasMessage("--max-payload-size (caravan.max-payload-size) must be an integer >= 1, was '0'");
    }

    @Test
    void rejectsUnknownDispatchListingTheChoices() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CoreFlags.DISPATCH, "threads"))
                .hasMessage("--dispatch (caravan.dispatch) must be one of event-loop, worker, was 'threads'");
    }

    @Test
    void storesChoicesInTheirCanonicalSpelling() {
        GatewayConfig c = GatewayConfig.of(Map.of("caravan.dispatch", "Worker", "caravan.pd.mode", "VLLM",
                "caravan.policy.name", "RoundRobin", "caravan.log-level", "warning",
                "caravan.pd.decode-policy", "kvaware"));
        assertThat(c.dispatchOnEventLoop()).isFalse();
        assertThat(c.get(PdFeature.PD_MODE)).isEqualTo("vllm");
        assertThat(c.policyName()).isEqualTo("round_robin");
        assertThat(c.get(CoreFlags.LOG_LEVEL)).isEqualTo("warn");
        assertThat(c.get(PdFeature.DECODE_POLICY)).isEqualTo("kv_aware");
    }

    @Test
    void rejectsUnknownPolicyListingTheNames() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CoreFlags.POLICY_NAME, "fastest"))
                .hasMessageStartingWith("--policy (caravan.policy.name) must be one of random, round_robin,")
                .hasMessageEndingWith("kv_aware, was 'fastest'");
    }

    @Test
    void acceptsASpecialValueOutsideTheRange() {
        assertThat(GatewayConfig.defaults().with(FlowFeature.MAX_CONCURRENT_REQUESTS, "-1")
                .getInt(FlowFeature.MAX_CONCURRENT_REQUESTS)).isEqualTo(-1);
        assertThatThrownBy(() -> GatewayConfig.defaults().with(FlowFeature.MAX_CONCURRENT_REQUESTS, "0"))
                .hasMessage("--max-concurrent-requests (caravan.admission.max-concurrent-requests) must be "
                        + "-1 (unlimited) or an integer >= 1, was '0'");
    }

    @Test
    void checksNumberRangesAndPatterns() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(ReliabilityFeature.RETRY_JITTER_FACTOR, "1.5"))
                .hasMessage("--retry-jitter-factor (caravan.retry.jitter-factor) must be a number in [0, 1], "
                        + "was '1.5'");
        assertThatThrownBy(() -> GatewayConfig.defaults().with(HealthFeature.HEALTH_CHECK_ENDPOINT, "health"))
                .hasMessage("--health-check-endpoint (caravan.health.endpoint) must be a path starting with /, "
                        + "was 'health'");
    }

    @Test
    void aRowWithARuleAndADefaultCannotBeEmptied() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CoreFlags.PORT, ""))
                .hasMessage("--port (caravan.port) must be set (an integer in [0, 65535])");
        assertThat(GatewayConfig.defaults().with(PdFeature.PREFILL_POLICY, "").get(PdFeature.PREFILL_POLICY))
                .isEmpty();
    }

    @Test
    void leavesAPolicyOptionsRangeToThePolicyRecord() {
        GatewayConfig c = GatewayConfig.defaults().with(RoutingFeature.CACHE_THRESHOLD, "1.5");
        assertThatThrownBy(() -> PolicyConfig.fromOptions(c.policyName(), c.policyOptions()))
                .hasMessage("cacheThreshold (cache-threshold) must be in [0,1], was 1.5");
        assertThatThrownBy(() -> GatewayConfig.defaults().with(RoutingFeature.CACHE_THRESHOLD, "high"))
                .hasMessage("--cache-threshold (caravan.policy.cache-threshold) must be a number, was 'high'");
    }

    @Test
    void rejectsNonBooleanSwitch() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CoreFlags.DECISION_HEADERS, "yes"))
                .hasMessage("--decision-headers (caravan.decision-headers) must be true or false, was 'yes'");
    }

    @Test
    void reportsEveryInvalidValueAtOnce() {
        assertThatThrownBy(() -> GatewayConfig.of(Map.of("caravan.port", "x", "caravan.request-timeout-secs", "0")))
                .hasMessageContaining("--port (caravan.port) must be an integer in [0, 65535], was 'x'")
                .hasMessageContaining("; --request-timeout-secs (caravan.request-timeout-secs) must be an integer "
                        + "in [1, 315360000], was '0'");
    }

    @Test
    void ignoresOtherNamespacesAndKeepsExtraCaravanKeys() {
        GatewayConfig c = GatewayConfig.of(Map.of("camel.main.name", "x", "caravan.extra.thing", "y"));
        assertThat(c.asProperties()).doesNotContainKey("camel.main.name").containsEntry("caravan.extra.thing", "y");
    }

    @Test
    void listValuesAreTrimmedAndEmptyEntriesDropped() {
        GatewayConfig c = GatewayConfig.defaults().with(CoreFlags.WORKER_URLS, " http://a:1 , ,http://b:2");
        assertThat(c.workerUrls()).containsExactly("http://a:1", "http://b:2");
    }

    @Test
    void toStringHidesTheApiKey() {
        assertThat(GatewayConfig.defaults().with(CoreFlags.API_KEY, "sk-secret").toString())
                .doesNotContain("sk-secret").contains("caravan.api-key=****");
    }
}
