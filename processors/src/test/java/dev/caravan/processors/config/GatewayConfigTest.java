package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

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
        assertThat(c.decisionHeaders()).isTrue();
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
        assertThat(GatewayConfig.defaults().with(CaravanFlags.LOAD_CHECK_INTERVAL, "3").policyOptions())
                .containsEntry("engine-load-max-age", "6");
        assertThat(GatewayConfig.defaults().with(CaravanFlags.LOAD_CHECK_INTERVAL, "0").policyOptions())
                .containsEntry("engine-load-max-age", "0");
        assertThat(GatewayConfig.of(Map.of("caravan.policy.engine-load-max-age", "30")).policyOptions())
                .containsEntry("engine-load-max-age", "30");
    }

    @Test
    void rejectsPortAbove65535() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CaravanFlags.PORT, "70000"))
                .hasMessage("caravan.port must be in [0,65535], was 70000");
    }

    @Test
    void maxTreeSizeIsAWholeNumberOrAuto() {
        assertThat(GatewayConfig.defaults().with(CaravanFlags.MAX_TREE_SIZE, "auto").policyOptions())
                .containsEntry("max-tree-size", "auto");
        assertThat(GatewayConfig.defaults().with(CaravanFlags.MAX_TREE_SIZE, "10000").getLong(CaravanFlags.MAX_TREE_SIZE))
                .isEqualTo(10_000);
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CaravanFlags.MAX_TREE_SIZE, "big"))
                .hasMessage("caravan.policy.max-tree-size must be a whole number or auto, was 'big'");
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CaravanFlags.MAX_TREE_SIZE, "0"))
                .hasMessage("caravan.policy.max-tree-size must be in [1,9223372036854775807], was 0");
    }

    @Test
    void rejectsNonPositivePayloadSize() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CaravanFlags.MAX_PAYLOAD_SIZE, "0"))
                .hasMessage("caravan.max-payload-size must be in [1,9223372036854775807], was 0");
    }

    @Test
    void rejectsUnknownDispatch() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CaravanFlags.DISPATCH, "threads"))
                .hasMessage("caravan.dispatch must be worker or event-loop, was 'threads'");
    }

    @Test
    void rejectsNonBooleanSwitch() {
        assertThatThrownBy(() -> GatewayConfig.defaults().with(CaravanFlags.DECISION_HEADERS, "yes"))
                .hasMessage("caravan.decision-headers must be true or false, was 'yes'");
    }

    @Test
    void reportsEveryInvalidValueAtOnce() {
        assertThatThrownBy(() -> GatewayConfig.of(Map.of("caravan.port", "x", "caravan.request-timeout-secs", "0")))
                .hasMessageContaining("caravan.port must be an integer, was 'x'")
                .hasMessageContaining("caravan.request-timeout-secs must be in [1,");
    }

    @Test
    void ignoresOtherNamespacesAndKeepsExtraCaravanKeys() {
        GatewayConfig c = GatewayConfig.of(Map.of("camel.main.name", "x", "caravan.extra.thing", "y"));
        assertThat(c.asProperties()).doesNotContainKey("camel.main.name").containsEntry("caravan.extra.thing", "y");
    }

    @Test
    void listValuesAreTrimmedAndEmptyEntriesDropped() {
        GatewayConfig c = GatewayConfig.defaults().with(CaravanFlags.WORKER_URLS, " http://a:1 , ,http://b:2");
        assertThat(c.workerUrls()).containsExactly("http://a:1", "http://b:2");
    }

    @Test
    void toStringHidesTheApiKey() {
        assertThat(GatewayConfig.defaults().with(CaravanFlags.API_KEY, "sk-secret").toString())
                .doesNotContain("sk-secret").contains("caravan.api-key=****");
    }

    @Test
    void flagRowsRejectBadDefinitions() {
        assertThatThrownBy(() -> new CaravanFlag("port", "caravan.port", "1", FlagType.INT, "S", "d"))
                .hasMessage("flag must start with --, was 'port'");
        assertThatThrownBy(() -> new CaravanFlag("--x", "x.port", "1", FlagType.INT, "S", "d"))
                .hasMessage("key must start with caravan., was 'x.port'");
        assertThatThrownBy(() -> new CaravanFlag("--x", "caravan.x", "one", FlagType.INT, "S", "d"))
                .hasMessage("default of --x: caravan.x must be an integer, was 'one'");
    }
}
