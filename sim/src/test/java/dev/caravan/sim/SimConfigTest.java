package dev.caravan.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

class SimConfigTest {

    @Test
    void defaultsModelAnH100ServingLlama3_8B() {
        SimConfig c = SimConfig.builder().build();
        assertThat(c.kvCapacityTokens()).isEqualTo(428_569);
        assertThat(c.kvCapacityBlocks()).isEqualTo(26_785);
        assertThat(c.blockSize()).isEqualTo(16);
        assertThat(2048 / c.prefillTokensPerSec() * 1000 + c.prefillOverheadMs()).isCloseTo(86.0,
                org.assertj.core.data.Offset.offset(0.1));
    }

    @Test
    void rejectsBadValuesNamingThem() {
        assertThatThrownBy(() -> SimConfig.builder().timeScale(0).build())
                .hasMessage("timeScale must be in (0,100000], was 0.0");
        assertThatThrownBy(() -> SimConfig.builder().kvCapacityTokens(8).build())
                .hasMessage("kvCapacityTokens must be >= blockSize (16), was 8");
        assertThatThrownBy(() -> SimConfig.builder().bootstrapPort(9000).build())
                .hasMessage("bootstrapPort only applies to role prefill, was 9000 with role REGULAR");
        assertThatThrownBy(() -> SimConfig.builder().kvReplayEndpoint("tcp://*:1").build())
                .hasMessage("kvReplayEndpoint needs kvEventsEndpoint, was tcp://*:1");
    }

    @Test
    void cliMapsEveryFlagOntoTheConfig() {
        SimMain main = new SimMain();
        new CommandLine(main).parseArgs("--port", "9100", "--role", "prefill", "--bootstrap-port", "9200",
                "--kv-capacity-tokens", "1000", "--block-size", "32", "--chars-per-token", "3", "--hash-seed", "42",
                "--prefill-tokens-per-sec", "5000", "--decode-ms-per-token", "4", "--max-running", "7",
                "--time-scale", "20", "--kv-events-endpoint", "tcp://*:7000", "--kv-replay-endpoint", "tcp://*:7100",
                "--kv-events-layout", "array", "--seed", "5", "--model", "m", "--fault-error-rate", "0.25");
        SimConfig c = main.config();
        assertThat(c.port()).isEqualTo(9100);
        assertThat(c.role()).isEqualTo(EngineRole.PREFILL);
        assertThat(c.bootstrapPort()).isEqualTo(9200);
        assertThat(c.kvCapacityTokens()).isEqualTo(1000);
        assertThat(c.blockSize()).isEqualTo(32);
        assertThat(c.charsPerToken()).isEqualTo(3);
        assertThat(c.hashSeed()).isEqualTo("42");
        assertThat(c.prefillTokensPerSec()).isEqualTo(5000);
        assertThat(c.decodeMsPerToken()).isEqualTo(4);
        assertThat(c.maxRunning()).isEqualTo(7);
        assertThat(c.timeScale()).isEqualTo(20);
        assertThat(c.kvEventsEndpoint()).isEqualTo("tcp://*:7000");
        assertThat(c.kvReplayEndpoint()).isEqualTo("tcp://*:7100");
        assertThat(c.kvEventsLayout()).isEqualTo(dev.caravan.sim.kv.KvEventLayout.ARRAY);
        assertThat(c.seed()).isEqualTo(5);
        assertThat(c.model()).isEqualTo("m");
        assertThat(c.faults().errorRate()).isEqualTo(0.25);
    }

    @Test
    void helpListsTheFlagsWithDefaults() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new SimMain());
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("--help")).isZero();
        assertThat(out.toString()).contains("--kv-capacity-tokens=<kvCapacityTokens>").contains("Default: 428569")
                .contains("--time-scale").contains("--kv-events-layout").contains("--bootstrap-port")
                .contains("--hash-seed").contains("Default: 8000");
    }
}
