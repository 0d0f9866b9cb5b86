package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.tokens.KvTokenizers;

/** The KV-event flags become the KV settings and the tokenizer source. */
class KvWiringTest {

    @TempDir
    Path dir;

    private GatewayConfig parse(String... args) {
        return ConfigResolver.resolve(args, Map.of(), dir).config();
    }

    @Test
    void theTablesDefaultsAreTheSettingsDefaults() {
        assertThat(KvBeans.settings(GatewayConfig.defaults())).isEqualTo(KvSettings.defaults());
    }

    @Test
    void everyKvFlagReachesItsSetting() {
        KvSettings s = KvBeans.settings(parse("--kv-events-endpoint-template", "tcp://{host}:5557",
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

    @Test
    void addSpecialTokensFlagReachesTheTokenizers() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        KvBeans byDefault = new KvBeans(GatewayConfig.defaults(), new WorkerRegistry(), meters);
        KvBeans without = new KvBeans(parse("--kv-add-special-tokens", "false"), new WorkerRegistry(), meters);
        try (byDefault; without) {
            assertThat(((KvTokenizers) byDefault.groundTruth().tokenizers()).addSpecialTokens()).isTrue();
            assertThat(((KvTokenizers) without.groundTruth().tokenizers()).addSpecialTokens()).isFalse();
        }
    }
}
