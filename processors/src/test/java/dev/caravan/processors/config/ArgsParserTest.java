package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

class ArgsParserTest {

    @Test
    void acceptsAnSglangLaunchRouterCommandLineVerbatim() {
        ArgsParser.Parsed p = ArgsParser.parse("--host", "127.0.0.1", "--port", "30001", "--worker-urls",
                "http://a:8000", "http://b:8000", "--policy", "cache_aware", "--cache-threshold", "0.5",
                "--balance-abs-threshold", "32", "--balance-rel-threshold", "1.1", "--eviction-interval", "30",
                "--max-tree-size", "1000", "--max-payload-size", "1024", "--request-timeout-secs", "60",
                "--api-key", "sk-1", "--log-level", "debug");

        assertThat(p.properties())
                .containsEntry("caravan.host", "127.0.0.1")
                .containsEntry("caravan.port", "30001")
                .containsEntry("caravan.worker-urls", "http://a:8000,http://b:8000")
                .containsEntry("caravan.policy.name", "cache_aware")
                .containsEntry("caravan.policy.cache-threshold", "0.5")
                .containsEntry("caravan.policy.balance-abs-threshold", "32")
                .containsEntry("caravan.policy.balance-rel-threshold", "1.1")
                .containsEntry("caravan.policy.eviction-interval", "30")
                .containsEntry("caravan.policy.max-tree-size", "1000")
                .containsEntry("caravan.max-payload-size", "1024")
                .containsEntry("caravan.request-timeout-secs", "60")
                .containsEntry("caravan.api-key", "sk-1")
                .containsEntry("caravan.log-level", "debug");
        assertThat(p.help()).isFalse();
    }

    @Test
    void acceptsFlagEqualsValue() {
        assertThat(ArgsParser.parse("--port=8080").properties()).containsEntry("caravan.port", "8080");
    }

    @Test
    void repeatedListFlagAppends() {
        assertThat(ArgsParser.parse("--worker-urls", "http://a:1", "--worker-urls", "http://b:2").properties())
                .containsEntry("caravan.worker-urls", "http://a:1,http://b:2");
    }

    @Test
    void booleanFlagWithoutValueMeansTrueAndTakesAnExplicitValue() {
        assertThat(ArgsParser.parse("--decision-headers", "--port", "1").properties())
                .containsEntry("caravan.decision-headers", "true").containsEntry("caravan.port", "1");
        assertThat(ArgsParser.parse("--decision-headers", "false").properties())
                .containsEntry("caravan.decision-headers", "false");
    }

    @Test
    void groupFlagsKeepEachOccurrenceWithItsOptionalValues() {
        CaravanFlag prefill = CaravanFlag.builder("--prefill", "caravan.test.prefill", FlagType.GROUPS, "Test")
                .describe("prefill URL [PORT|none]");
        CaravanFlag pd = CaravanFlag.builder("--pd-disaggregation", "caravan.test.pd", FlagType.SWITCH, "Test")
                .defaultValue(false).describe("P/D mode");
        ArgsParser.Parsed p = ArgsParser.parse(List.of(prefill, pd), "--pd-disaggregation", "--prefill",
                "http://p:8080", "9000", "--prefill", "http://p2:8080", "none", "--prefill", "http://p3:8080");

        assertThat(p.properties()).containsEntry("caravan.test.pd", "true")
                .containsEntry("caravan.test.prefill", "http://p:8080 9000,http://p2:8080 none,http://p3:8080");
        GatewayConfig config = GatewayConfig.defaults().with("caravan.test.prefill",
                p.properties().get("caravan.test.prefill"));
        assertThat(config.getGroups(prefill)).containsExactly(List.of("http://p:8080", "9000"),
                List.of("http://p2:8080", "none"), List.of("http://p3:8080"));
    }

    @Test
    void switchFlagRejectsAValue() {
        CaravanFlag pd = CaravanFlag.builder("--pd", "caravan.test.pd", FlagType.SWITCH, "Test").describe("x");
        assertThatThrownBy(() -> ArgsParser.parse(List.of(pd), "--pd=yes"))
                .hasMessage("--pd takes no value, got 'yes'");
    }

    @Test
    void unknownFlagIsNamed() {
        assertThatThrownBy(() -> ArgsParser.parse("--no-such-flag", "1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown flag --no-such-flag");
    }

    @Test
    void missingValueIsNamed() {
        assertThatThrownBy(() -> ArgsParser.parse("--port")).hasMessage("--port needs a value");
        assertThat(ArgsParser.parse("--worker-urls", "--port", "1").properties())
                .as("a list flag alone is SGLang's empty nargs=* list").containsEntry("caravan.worker-urls", "");
    }

    @Test
    void valuesAreCheckedWithThoseOfTheOtherLayersNotWhileParsing() {
        ArgsParser.Parsed p = ArgsParser.parse("--port", "eighty");
        assertThat(p.properties()).containsEntry("caravan.port", "eighty");
        assertThatThrownBy(() -> GatewayConfig.of(p.properties()))
                .hasMessage("--port (caravan.port) must be an integer in [0, 65535], was 'eighty'");
    }

    @Test
    void strayArgumentIsRejected() {
        assertThatThrownBy(() -> ArgsParser.parse("8080")).hasMessageContaining("unexpected argument '8080'");
    }

    @Test
    void helpListsEveryFlagWithItsDefault() {
        assertThat(ArgsParser.parse("--help").help()).isTrue();
        String help = ArgsParser.help();
        for (CaravanFlag f : CaravanFlags.all()) {
            assertThat(help).contains(f.flag()).contains(f.envVar());
        }
        assertThat(help).contains("[default: 30000]\n      values: [0, 65535]\n")
                .contains("values: -1 (unlimited) or >= 1")
                .contains("values: event-loop | worker");
    }
}
