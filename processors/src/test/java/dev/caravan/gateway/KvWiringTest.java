package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.feature.MapWiring;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.tokens.KvTokenizers;

/** The KV-event flags become the KV settings and the tokenizer source; the KV feature wires its own beans. */
class KvWiringTest {

    @TempDir
    Path dir;

    private GatewayConfig parse(String... args) {
        return ConfigResolver.resolve(args, Map.of(), dir).config();
    }

    @Test
    void theTablesDefaultsAreTheSettingsDefaults() {
        assertThat(KvFeature.settings(GatewayConfig.defaults())).isEqualTo(KvSettings.defaults());
    }

    @Test
    void everyKvFlagReachesItsSetting() {
        KvSettings s = KvFeature.settings(parse("--kv-events-endpoint-template", "tcp://{host}:5557",
                "--kv-replay-endpoint-template", "tcp://{host}:5558", "--kv-events-topic", "kv",
                "--kv-replay-timeout-secs", "7", "--kv-max-blocks-per-worker", "1000",
                "--kv-silence-threshold-secs", "0", "--kv-calibrate-tree", "--max-tree-size", "auto",
                "--kv-chars-per-token", "3", "--kv-block-size", "32", "--kv-parity-expiry-secs", "9",
                "--kv-parity-warn-below", "0.5"));
        assertThat(s).isEqualTo(new KvSettings("tcp://{host}:5557", "tcp://{host}:5558", "kv", Duration.ofSeconds(7),
                1000, Duration.ZERO, true, true, 3, 32, Duration.ofSeconds(9), 0.5));
    }

    @Test
    void outOfRangeValuesNameTheFlag() {
        assertThatThrownBy(() -> parse("--kv-parity-warn-below", "2"))
                .hasMessage("--kv-parity-warn-below (caravan.kv.parity-warn-below) must be a number in [0, 1], "
                        + "was '2'");
        assertThatThrownBy(() -> parse("--kv-block-size", "0"))
                .hasMessage("--kv-block-size (caravan.policy.kv-block-size) must be an integer in [1, 4096], was '0'");
    }

    /** A KV feature wired alone, as the gateway's assembler wires it (with the policy registry bound before). */
    private static MapWiring wired(KvFeature kv, GatewayConfig config) {
        WorkerRegistry workers = new WorkerRegistry();
        MapWiring w = new MapWiring(config, null, workers, new SimpleMeterRegistry(), false);
        PolicyEnvironment env = kv.policyEnvironment(w, PolicyEnvironment.system());
        PolicyConfig policy = PolicyConfig.fromOptions("kv_aware", config.policyOptions());
        w.bind(Wiring.POLICY_REGISTRY, new PolicyRegistry(workers, WorkerRole.REGULAR,
                model -> PolicyFactory.create(policy, env)));
        kv.wire(w);
        return w;
    }

    @Test
    void addSpecialTokensFlagReachesTheTokenizers() {
        KvFeature byDefault = new KvFeature();
        KvFeature without = new KvFeature();
        try {
            wired(byDefault, GatewayConfig.defaults());
            wired(without, parse("--kv-add-special-tokens", "false"));
            assertThat(((KvTokenizers) byDefault.groundTruth().tokenizers()).addSpecialTokens()).isTrue();
            assertThat(((KvTokenizers) without.groundTruth().tokenizers()).addSpecialTokens()).isFalse();
        } finally {
            byDefault.close();
            without.close();
        }
    }

    @Test
    void bindsTheStepsOfTheKvEventRoutesAndSharesItsSettings() {
        KvFeature kv = new KvFeature();
        try {
            MapWiring w = wired(kv, parse("--kv-silence-threshold-secs", "4"));
            assertThat(w.beans().keySet()).contains(KvFeature.DECODE_KV_BATCH, KvFeature.APPLY_KV_EVENTS,
                    KvFeature.CHECK_KV_PUBLISHERS, KvFeature.PLAN_KV_CAPACITY_POLL, KvFeature.APPLY_KV_CAPACITY,
                    KvFeature.KV_BLOCK_INDEX, KvFeature.KV_PARITY_TRACKER, KvFeature.KV_EVENT_INGESTOR,
                    KvFeature.KV_ROUTE_MANAGER, KvFeature.KV_METRICS);
            assertThat(w.get(KvFeature.KV_BLOCK_INDEX, KvBlockIndex.class)).isSameAs(kv.index());
            assertThat(w.shared(KvSettings.class)).isSameAs(kv.settings());
            assertThat(w.properties()).containsEntry("caravan.derived.kv-silence-check-enabled", "true")
                    .containsEntry("caravan.derived.kv-silence-check-period-ms", "2000");
        } finally {
            kv.close();
        }
    }

    @Test
    void wiringBeforeThePolicyEnvironmentIsAnError() {
        KvFeature kv = new KvFeature();
        MapWiring w = new MapWiring(GatewayConfig.defaults(), null, new WorkerRegistry(), new SimpleMeterRegistry(),
                false);
        assertThatThrownBy(() -> kv.wire(w)).isInstanceOf(IllegalStateException.class)
                .hasMessage("KvFeature.policyEnvironment must run first");
    }
}
