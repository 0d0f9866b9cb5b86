package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import dev.caravan.processors.routing.RoutingFeature;

/**
 * Every flag of the pinned SGLang router (sglang-router 0.3.2: its Python launcher with the {@code --router-*} forms
 * {@code launch_server} adds, and its Rust binary; {@code src/test/resources/sglang/*.tsv}, derived from their source
 * by {@code derive_flags.py}) goes through the real parser and validation: it is accepted (an ignored one leaves its
 * warning), or refused with the message the docs give; and an implemented flag's default is SGLang's.
 */
class SglangFlagsTest {

    static final List<UpstreamFlag> LAUNCHER = load("python-launch-router-flags.tsv");
    static final List<UpstreamFlag> BINARY = load("rust-binary-flags.tsv");

    /** Values for flags whose value must have a form (a URL, k=v, a number list); anything else gets a plain one. */
    private static final Map<String, List<String>> SAMPLES = Map.ofEntries(
            Map.entry("--worker-urls", List.of("http://w1:8000", "http://w2:8000")),
            Map.entry("--prefill", List.of("http://p1:8000", "9000")),
            Map.entry("--decode", List.of("http://d1:8000")),
            Map.entry("--selector", List.of("app=sglang", "tier=gpu")),
            Map.entry("--prefill-selector", List.of("role=prefill")),
            Map.entry("--decode-selector", List.of("role=decode")),
            Map.entry("--prometheus-duration-buckets", List.of("0.01", "0.1", "1", "10")),
            Map.entry("--request-id-headers", List.of("x-my-request-id")),
            Map.entry("--cors-allowed-origins", List.of("https://app.example.com")),
            Map.entry("--ca-cert-paths", List.of("/etc/caravan/ca.pem")),
            Map.entry("--health-check-endpoint", List.of("/health_generate")),
            Map.entry("--control-plane-api-keys", List.of("key1:Service:admin:secret")),
            Map.entry("--jwt-role-mapping", List.of("Gateway.Admin=admin")),
            Map.entry("--mesh-peer-urls", List.of("http://peer:39527")),
            Map.entry("--otlp-traces-endpoint", List.of("collector:4317")));

    private static List<UpstreamFlag> load(String name) {
        try (InputStream in = SglangFlagsTest.class.getResourceAsStream("/sglang/" + name)) {
            return UpstreamFlag.parseTsv(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("cannot read the pinned flag list " + name, e);
        }
    }

    static Stream<UpstreamFlag> everyUpstreamFlag() {
        return Stream.concat(LAUNCHER.stream(), BINARY.stream());
    }

    @Test
    void thePinnedListsAreComplete() {
        assertThat(LAUNCHER).as("launch_router and its --router-* forms").hasSizeGreaterThan(180);
        assertThat(BINARY).hasSizeGreaterThan(100);
        assertThat(LAUNCHER).extracting(UpstreamFlag::flag)
                .contains("--eviction-interval-secs", "--router-eviction-interval-secs", "--prometheus-port",
                        "--tls-cert-path", "--client-cert-path", "--dp-aware", "--log-dir");
        assertThat(BINARY).extracting(UpstreamFlag::flag)
                .contains("--eviction-interval", "--prefix-hash-load-factor", "--runtime", "--enable-mesh");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyUpstreamFlag")
    void everyPinnedFlagParsesOrIsRefusedWithItsReason(UpstreamFlag up) {
        String flag = up.flag();
        String dflt = up.defaultValue();
        Optional<CaravanFlag> row = CaravanFlags.byFlag(flag);
        assertThat(row).as(flag + " has a row that implements, warns about or refuses it").isPresent();
        CaravanFlag r = row.get();
        List<String> values = sample(up, r);
        String given = up.isSwitch() ? "true" : String.join(",", values);
        String refusal = r.refusal(given);
        List<String> args = argsFor(up, values);
        if (refusal != null) {
            assertThat(r.support().status() == FlagSupport.Status.REFUSED || !r.support().refusedValues().isEmpty())
                    .as(flag + " refused though its row accepts it").isTrue();
            assertThatThrownBy(() -> GatewayConfig.of(ArgsParser.parse(args.toArray(String[]::new)).properties()))
                    .as(String.join(" ", args)).hasMessageContaining(r.flag() + " ")
                    .hasMessageContaining("is not supported by Caravan: ");
            return;
        }
        GatewayConfig config = GatewayConfig.of(ArgsParser.parse(args.toArray(String[]::new)).properties());
        if (r.support().status() == FlagSupport.Status.IGNORED && !r.type().equals(FlagType.SWITCH)
                && !dflt.isEmpty() && values.equals(List.of(dflt))) {
            assertThat(config.warnings()).as("the default value of an ignored flag is silent").isEmpty();
        } else if (r.support().status() == FlagSupport.Status.IGNORED) {
            assertThat(config.warnings()).containsExactly(r.flag()
                    + " is accepted for SGLang compatibility and ignored: " + r.support().note());
        } else {
            assertThat(config.warnings()).as(flag).isEmpty();
        }
    }

    @Test
    void refusedFlagsStopStartUpNamingTheFlagAndWhy() {
        assertThatThrownBy(() -> GatewayConfig.of(ArgsParser.parse("--jwt-issuer", "https://idp.example.com",
                "--router-tool-call-parser", "qwen").properties()))
                .hasMessage("--tool-call-parser is not supported by Caravan: it rewrites responses (tool calls parsed "
                        + "out); Caravan passes the engine's response through, so start the engine with its own "
                        + "--tool-call-parser; --jwt-issuer is not supported by Caravan: control-plane "
                        + "authentication (API keys with roles, JWT/OIDC) is not implemented; use --admin-api-key for "
                        + "the admin API");
        assertThatThrownBy(() -> GatewayConfig.of(ArgsParser.parse("--history-backend", "redis").properties()))
                .hasMessage("--history-backend redis is not supported by Caravan: external history stores are not "
                        + "implemented");
        assertThatThrownBy(() -> GatewayConfig.of(ArgsParser.parse("--runtime", "openai").properties()))
                .hasMessageStartingWith("--backend openai is not supported by Caravan: ");
    }

    @Test
    void ignoredFlagsWarnOnceNamingTheFlagButNeverTheValue() {
        GatewayConfig config = GatewayConfig.of(ArgsParser.parse("--mini-lb", "--oracle-password", "hunter2",
                "--worker-urls", "http://w:8000").properties());
        assertThat(config.warnings()).hasSize(2).allMatch(w -> !w.contains("hunter2"))
                .anyMatch(w -> w.startsWith("--mini-lb is accepted for SGLang compatibility and ignored: "))
                .anyMatch(w -> w.startsWith("--oracle-password is accepted for SGLang compatibility and ignored: "));
        assertThat(config.toString()).doesNotContain("hunter2");
    }

    @Test
    void theLaunchersAndTheBinarysNamesBothSetOneSettingWithTheLaunchersDefault() {
        assertThat(GatewayConfig.defaults().getLong(RoutingFeature.EVICTION_INTERVAL)).isEqualTo(60);
        assertThat(GatewayConfig.of(ArgsParser.parse("--eviction-interval", "120").properties())
                .getLong(RoutingFeature.EVICTION_INTERVAL)).isEqualTo(120);
        assertThat(GatewayConfig.of(ArgsParser.parse("--router-eviction-interval-secs", "90").properties())
                .getLong(RoutingFeature.EVICTION_INTERVAL)).isEqualTo(90);
        assertThat(GatewayConfig.of(ArgsParser.parse("--prefix-hash-load-factor", "2.5").properties())
                .getDouble(RoutingFeature.LOAD_FACTOR)).isEqualTo(2.5);
        assertThat(GatewayConfig.of(ArgsParser.parse("--bucket-adjust-interval-secs", "7").properties())
                .getLong(RoutingFeature.BUCKET_ADJUST_INTERVAL)).isEqualTo(7);
    }

    /**
     * An implemented flag defaults to the Python launcher's value; a binary-only flag to the binary's, unless the row
     * has a launcher name whose default it carries (--eviction-interval: the launcher's --eviction-interval-secs 60).
     * A row that differs on purpose says so (its status is "implemented, different", with the reason).
     */
    @Test
    void implementedFlagsDefaultToTheLaunchersValues() {
        List<String> mismatches = new ArrayList<>();
        for (SglangFlagStatus.Entry e : SglangFlagStatus.entries(LAUNCHER, BINARY)) {
            if (e.row().isEmpty() || e.row().get().support().status() != FlagSupport.Status.IMPLEMENTED) {
                continue;
            }
            CaravanFlag r = e.row().get();
            UpstreamFlag decl = e.launcher() != null ? e.launcher() : launcherAlias(r).orElse(e.binary());
            if (decl.isSwitch() || decl.defaultValue().isEmpty()) {
                continue;
            }
            if (!SglangFlagStatus.sameValue(decl.defaultValue(), r)) {
                mismatches.add(e.flag() + ": SGLang " + decl.defaultValue() + ", Caravan " + r.defaultValue());
            }
        }
        if (!mismatches.isEmpty()) {
            fail("defaults differ from SGLang's without a stated reason:\n" + String.join("\n", mismatches));
        }
    }

    /**
     * With {@code --sglang-defaults}, every flag Caravan implements (as documented or with a stated difference) has the
     * Python launcher's default, or the binary's for a binary-only flag.
     */
    @Test
    void sglangDefaultsRestoreEveryImplementedFlagsUpstreamDefault() {
        GatewayConfig sglang = GatewayConfig.of(ArgsParser.parse("--sglang-defaults").properties());
        List<String> mismatches = new ArrayList<>();
        for (SglangFlagStatus.Entry e : SglangFlagStatus.entries(LAUNCHER, BINARY)) {
            if (e.row().isEmpty() || e.row().get().support().status() == FlagSupport.Status.IGNORED
                    || e.row().get().support().status() == FlagSupport.Status.REFUSED) {
                continue;
            }
            CaravanFlag r = e.row().get();
            UpstreamFlag decl = e.launcher() != null ? e.launcher() : launcherAlias(r).orElse(e.binary());
            if (decl.isSwitch() || decl.defaultValue().isEmpty()) {
                continue;
            }
            String value = sglang.get(r);
            if (!SglangFlagStatus.sameValue(decl.defaultValue(), value, r.type())) {
                mismatches.add(e.flag() + ": SGLang " + decl.defaultValue() + ", Caravan with --sglang-defaults "
                        + value);
            }
        }
        assertThat(mismatches).isEmpty();
    }

    private static Optional<UpstreamFlag> launcherAlias(CaravanFlag row) {
        return LAUNCHER.stream().filter(f -> f.source().equals("launch_router") && row.names().contains(f.flag()))
                .findFirst();
    }

    private static List<String> sample(UpstreamFlag up, CaravanFlag row) {
        if (up.isSwitch()) {
            return List.of();
        }
        String bare = up.flag().startsWith(CaravanFlag.ROUTER_PREFIX)
                ? "--" + up.flag().substring(CaravanFlag.ROUTER_PREFIX.length()) : up.flag();
        if (SAMPLES.containsKey(bare)) {
            return SAMPLES.get(bare);
        }
        if (!up.defaultValue().isEmpty()) {
            return List.of(up.defaultValue());
        }
        if (!up.choiceList().isEmpty()) {
            return List.of(up.choiceList().get(0));
        }
        FlagType type = row == null ? FlagType.STRING : row.type();
        return List.of(switch (type) {
            case INT, LONG -> "7";
            case DOUBLE -> "0.5";
            default -> "value";
        });
    }

    private static List<String> argsFor(UpstreamFlag up, List<String> values) {
        List<String> args = new ArrayList<>();
        args.add(up.flag());
        args.addAll(values);
        return args;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyUpstreamChoice")
    void everyUpstreamChoiceIsAcceptedOrRefusedWithItsReason(String flag, String choice) {
        CaravanFlag r = CaravanFlags.byFlag(flag).orElseThrow();
        Map<String, String> props = ArgsParser.parse(flag, choice).properties();
        if (r.refusal(choice) != null) {
            assertThatThrownBy(() -> GatewayConfig.of(props)).hasMessageContaining("is not supported by Caravan");
        } else {
            assertThat(GatewayConfig.of(props).get(r)).isEqualTo(r.canonical(choice));
        }
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> everyUpstreamChoice() {
        return everyUpstreamFlag().filter(f -> !f.choiceList().isEmpty() && CaravanFlags.byFlag(f.flag()).isPresent())
                .flatMap(f -> f.choiceList().stream()
                        .map(c -> org.junit.jupiter.params.provider.Arguments.of(f.flag(), c)));
    }
}
