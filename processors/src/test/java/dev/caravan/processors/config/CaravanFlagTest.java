package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyName;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.routing.RoutingFeature;

/** One row: its definition, its rule, and the table's agreement with the records whose defaults it carries. */
class CaravanFlagTest {

    private static CaravanFlag.Builder row(String flag, FlagType type) {
        return CaravanFlag.builder(flag, "caravan.test." + flag.substring(2), type, "Test");
    }

    @Test
    void rejectsBadDefinitions() {
        assertThatThrownBy(() -> CaravanFlag.builder("port", "caravan.port", FlagType.INT, "S").describe("d"))
                .hasMessage("flag must start with --, was 'port'");
        assertThatThrownBy(() -> CaravanFlag.builder("--x", "x.port", FlagType.INT, "S").describe("d"))
                .hasMessage("key must start with caravan., was 'x.port'");
        assertThatThrownBy(() -> row("--x", FlagType.STRING).min(1).describe("d"))
                .hasMessage("--x: a range needs a numeric type, not STRING");
        assertThatThrownBy(() -> row("--x", FlagType.INT).oneOf("a", "b").describe("d"))
                .hasMessage("--x: choices and patterns need type STRING, not INT");
    }

    @Test
    void rejectsADefaultThatBreaksItsOwnRule() {
        assertThatThrownBy(() -> row("--x", FlagType.INT).defaultValue("one").describe("d"))
                .hasMessage("default of --x (caravan.test.x) must be an integer, was 'one'");
        assertThatThrownBy(() -> row("--x", FlagType.INT).defaultValue(0).min(1).describe("d"))
                .hasMessage("default of --x (caravan.test.x) must be an integer >= 1, was '0'");
    }

    @Test
    void statesItsRuleInMessagesAndItsValuesInTheDocs() {
        CaravanFlag limit = row("--limit", FlagType.INT).defaultValue(-1).special("-1", "unlimited").min(1)
                .describe("d");
        assertThat(limit.rule()).isEqualTo("-1 (unlimited) or an integer >= 1");
        assertThat(limit.values()).isEqualTo("-1 (unlimited) or >= 1");
        CaravanFlag ratio = row("--ratio", FlagType.DOUBLE).range(0.0, 0.5).describe("d");
        assertThat(ratio.rule()).isEqualTo("a number in [0, 0.5]");
        assertThat(ratio.check("0.5")).isNull();
        assertThat(ratio.check("0.50001")).isEqualTo("--ratio (caravan.test.ratio) must be a number in [0, 0.5], "
                + "was '0.50001'");
        CaravanFlag opt = row("--opt", FlagType.DOUBLE).checkedBy("the policy").describe("d");
        assertThat(opt.rule()).isEqualTo("a number");
        assertThat(opt.values()).isEqualTo("checked by the policy");
    }

    @Test
    void boundsAreExactAtTheEdgesOfLong() {
        CaravanFlag big = row("--big", FlagType.LONG).range(Long.MAX_VALUE - 1, Long.MAX_VALUE).describe("d");
        assertThat(big.check(Long.toString(Long.MAX_VALUE))).isNull();
        assertThat(big.check(Long.toString(Long.MAX_VALUE - 2))).isNotNull();
    }

    @Test
    void choicesMatchWithoutCaseAndThroughAliasesAndStoreTheCanonicalSpelling() {
        CaravanFlag mode = row("--mode", FlagType.STRING).defaultValue("fast")
                .oneOf(Choices.of("fast", "safe").withAlias("quick", "fast")).describe("d");
        assertThat(mode.check("SAFE")).isNull();
        assertThat(mode.canonical("SAFE")).isEqualTo("safe");
        assertThat(mode.canonical("Quick")).isEqualTo("fast");
        assertThat(mode.check("slow")).isEqualTo("--mode (caravan.test.mode) must be one of fast, safe, was 'slow'");
        assertThat(mode.required()).isTrue();
        assertThat(mode.check(" ")).isEqualTo("--mode (caravan.test.mode) must be set (one of fast, safe)");
    }

    @Test
    void anEmptyValueIsUnsetWhereTheRowHasNoRuleOrNoDefault() {
        assertThat(row("--free", FlagType.STRING).defaultValue("x").describe("d").check("")).isNull();
        assertThat(row("--opt-in", FlagType.STRING).oneOf("a").describe("d").check("")).isNull();
    }

    @Test
    void policyOptionDefaultsAreThePolicyRecordsDefaults() {
        GatewayConfig defaults = GatewayConfig.defaults();
        for (PolicyName p : PolicyName.values()) {
            assertThat(PolicyConfig.fromOptions(p.wireName(), defaults.policyOptions())).as(p.wireName())
                    .isEqualTo(PolicyConfig.fromOptions(p.wireName(), Map.of()));
        }
    }

    @Test
    void everyChoiceOfAPolicyRowIsOneThePolicyLibraryAccepts() {
        for (String name : CoreFlags.POLICY_NAME.choices().values()) {
            assertThat(PolicyConfig.fromOptions(name, Map.of()).policyName()).isEqualTo(name);
        }
        for (String mode : RoutingFeature.ASSIGNMENT_MODE.choices().values()) {
            assertThat(PolicyConfig.fromOptions("manual", Map.of("assignment-mode", mode))).isNotNull();
        }
        for (String source : KvFeature.KV_DECODE_LOAD_SOURCE.choices().values()) {
            assertThat(PolicyConfig.fromOptions("kv_aware", Map.of("kv-decode-load-source", source))).isNotNull();
        }
    }

    @Test
    void answersToItsAliasesAndToEveryNameWithTheRouterPrefix() {
        CaravanFlag f = row("--eviction", FlagType.INT).alias("--eviction-secs").describe("d");
        assertThat(List.of("--eviction", "--eviction-secs", "--router-eviction", "--router-eviction-secs"))
                .allMatch(f::answersTo);
        assertThat(f.answersTo("--router-router-eviction")).isFalse();
        assertThat(f.answersTo("--evict")).isFalse();
        assertThatThrownBy(() -> row("--x", FlagType.INT).alias("x-secs").describe("d"))
                .hasMessage("--x: alias must start with --, was 'x-secs'");
    }

    @Test
    void anIgnoredFlagWarnsAndARefusedOneRefusesOnlyAwayFromItsDefault() {
        CaravanFlag ignored = row("--pool", FlagType.INT).defaultValue(16).ignored("no pool here").describe("d");
        assertThat(ignored.warning("16")).isNull();
        assertThat(ignored.warning("32")).isEqualTo("--pool is accepted for SGLang compatibility and ignored: no pool here");
        CaravanFlag refused = row("--mesh", FlagType.SWITCH).defaultValue(false).refused("no mesh").describe("d");
        assertThat(refused.refusal("false")).isNull();
        assertThat(refused.refusal("true")).isEqualTo("--mesh is not supported by Caravan: no mesh");
        CaravanFlag backend = row("--engine", FlagType.STRING).defaultValue("a").oneOf("a", "b", "c")
                .refusing("c is elsewhere", "c").describe("d");
        assertThat(backend.refusal("B")).isNull();
        assertThat(backend.refusal("C")).isEqualTo("--engine c is not supported by Caravan: c is elsewhere");
        assertThat(backend.support().status()).isEqualTo(FlagSupport.Status.IMPLEMENTED);
    }

    @Test
    void aStatusOtherThanImplementedNeedsItsReason() {
        assertThatThrownBy(() -> row("--x", FlagType.INT).ignored(" ").describe("d"))
                .hasMessage("a flag that is accepted and ignored needs a note saying why");
    }
}
