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
        assertThat(c.hashAlgo()).as("vLLM's default").isEqualTo(dev.caravan.sim.hash.HashAlgo.SHA256);
        assertThat(c.hashSeed()).as("no PYTHONHASHSEED: a random root per engine").isNull();
        assertThat(c.kvPublisher()).isEqualTo(dev.caravan.sim.kv.KvPublisherKind.VLLM);
        assertThat(c.dataParallelSize()).isEqualTo(1);
        assertThat(c.kvOffloadCapacityTokens()).isZero();
        assertThat(c.tokenizer()).isNull();
        assertThat(c.kvEventsIntHashes()).as("VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1").isTrue();
        assertThat(c.kvGroups()).isEqualTo("full");
        assertThat(c.kvGroupLayout().isSingleGroup()).isTrue();
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
        assertThatThrownBy(() -> SimConfig.builder().dataParallelSize(0).build())
                .hasMessage("dataParallelSize must be in [1,64], was 0");
        assertThatThrownBy(() -> SimConfig.builder().kvOffloadCapacityTokens(8).build())
                .hasMessage("kvOffloadCapacityTokens must be 0 or >= blockSize (16), was 8");
        assertThatThrownBy(() -> SimConfig.builder().chatTemplate(java.nio.file.Path.of("t.jinja")).build())
                .hasMessage("chatTemplate needs tokenizer, was t.jinja");
        assertThatThrownBy(() -> SimConfig.builder().kvOffloadLoadTokensPerSec(0).build())
                .hasMessage("kvOffloadLoadTokensPerSec must be > 0, was 0.0");
    }

    @Test
    void rejectsHybridGroupsTheEngineCannotServeNamingThem() {
        assertThatThrownBy(() -> SimConfig.builder().kvGroups("full+mamba:528").build())
                .hasMessage("kvGroups mamba:528 needs block size 528 (vLLM gives every group the Mamba block), was 16");
        assertThatThrownBy(() -> SimConfig.builder().kvGroups("full+swa").build())
                .hasMessage("kvGroups part 'swa' of 'full+swa' is not full, swa:W, chunked:C or mamba:B[:R]");
        assertThatThrownBy(() -> SimConfig.builder().kvGroups("full+chunked:20").build())
                .hasMessage("attention chunk must be a multiple of the block size 16, was 20");
        assertThatThrownBy(() -> SimConfig.builder().kvGroups("full+swa:128")
                .kvPublisher(dev.caravan.sim.kv.KvPublisherKind.SGLANG).build())
                .hasMessage("kvGroups full+swa:128 needs kvPublisher vllm (hybrid groups are vLLM's), was SGLANG");
        assertThatThrownBy(() -> SimConfig.builder().kvGroups("full+swa:128").kvOffloadCapacityTokens(1024).build())
                .hasMessage("kvGroups full+swa:128 has no CPU tier, kvOffloadCapacityTokens must be 0, was 1024");
    }

    @Test
    void kvGroupsListsTheGroupsInGroupOrder() {
        SimConfig c = SimConfig.builder().blockSize(528).kvCapacityTokens(528_000).kvGroups("full+mamba:528:4")
                .build();
        assertThat(c.kvGroupLayout().rules()).containsExactly(
                new dev.caravan.sim.engine.hybrid.FullAttentionRule(528),
                new dev.caravan.sim.engine.hybrid.MambaRule(528, 4));
        assertThat(SimConfig.builder().kvGroups("full+swa:128+chunked:8192").build().kvGroupLayout().rules())
                .extracting(r -> r.kind())
                .containsExactly("full_attention", "sliding_window", "chunked_local_attention");
    }

    @Test
    void cliMapsEveryFlagOntoTheConfig() {
        SimMain main = new SimMain();
        new CommandLine(main).parseArgs("--port", "9100", "--role", "prefill", "--bootstrap-port", "9200",
                "--kv-capacity-tokens", "1000", "--block-size", "32", "--chars-per-token", "3", "--hash-seed", "42",
                "--prefill-tokens-per-sec", "5000", "--decode-ms-per-token", "4", "--max-running", "7",
                "--time-scale", "20", "--kv-events-endpoint", "tcp://*:7000", "--kv-replay-endpoint", "tcp://*:7100",
                "--kv-events-layout", "array", "--seed", "5", "--model", "m", "--fault-error-rate", "0.25",
                "--hash-algo", "xxhash_cbor", "--tokenizer", "/m/tokenizer.json", "--chat-template", "/m/t.jinja",
                "--data-parallel-size", "2", "--kv-publisher", "sglang", "--kv-offload-capacity-tokens", "4096",
                "--kv-offload-load-tokens-per-sec", "100000", "--kv-events-int-hashes", "false");
        SimMain hybrid = new SimMain();
        new CommandLine(hybrid).parseArgs("--kv-groups", "full+swa:128");
        assertThat(hybrid.config().kvGroups()).isEqualTo("full+swa:128");
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
        assertThat(c.hashAlgo()).isEqualTo(dev.caravan.sim.hash.HashAlgo.XXHASH_CBOR);
        assertThat(c.tokenizer()).isEqualTo(java.nio.file.Path.of("/m/tokenizer.json"));
        assertThat(c.chatTemplate()).isEqualTo(java.nio.file.Path.of("/m/t.jinja"));
        assertThat(c.dataParallelSize()).isEqualTo(2);
        assertThat(c.kvPublisher()).isEqualTo(dev.caravan.sim.kv.KvPublisherKind.SGLANG);
        assertThat(c.kvOffloadCapacityTokens()).isEqualTo(4096);
        assertThat(c.kvOffloadLoadTokensPerSec()).isEqualTo(100_000);
        assertThat(c.kvEventsIntHashes()).isFalse();
    }

    @Test
    void helpListsTheFlagsWithDefaults() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new SimMain());
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("--help")).isZero();
        assertThat(out.toString()).contains("--kv-capacity-tokens=<kvCapacityTokens>").contains("Default: 428569")
                .contains("--time-scale").contains("--kv-events-layout").contains("--bootstrap-port")
                .contains("--hash-seed").contains("Default: 8000").contains("--hash-algo=<hashAlgo>")
                .contains("Default: sha256").contains("--data-parallel-size").contains("--kv-publisher")
                .contains("--kv-offload-capacity-tokens").contains("--tokenizer").contains("--kv-groups=<kvGroups>")
                .contains("Default: full");
    }
}
