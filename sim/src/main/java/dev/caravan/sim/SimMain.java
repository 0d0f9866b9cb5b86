package dev.caravan.sim;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import dev.caravan.sim.hash.HashAlgo;
import dev.caravan.sim.kv.KvEventLayout;
import dev.caravan.sim.kv.KvPublisherKind;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./caravan sim}: starts K simulated engines in this process on consecutive ports and prints their URLs,
 * then runs until interrupted. Every flag maps to a {@link SimConfig} field; defaults are the config's DEFAULT_*
 * constants except {@code --port} (8000, vLLM's default, instead of ephemeral). Without {@code --hash-seed} the
 * {@code PYTHONHASHSEED} environment variable is the seed when set, as for vLLM; else every engine (and rank) draws
 * a random hash root.
 */
@Command(name = "caravan sim", mixinStandardHelpOptions = true, sortOptions = false, showDefaultValues = true,
        version = "caravan sim 0.1.0",
        description = "Simulated vLLM/SGLang engines with a real prefix cache, KV events and P/D rendezvous.",
        footer = "Defaults model one H100 serving Llama-3-8B; see docs/simulator.md for where each comes from.")
public final class SimMain implements Callable<Integer> {

    /** The CLI's default first port (vLLM's default); the programmatic default is ephemeral. */
    public static final int DEFAULT_CLI_PORT = 8000;

    @Option(names = "--port", description = "HTTP port of the first engine (0 = ephemeral).")
    int port = DEFAULT_CLI_PORT;
    @Option(names = "--count", description = "Engines to start on consecutive ports.")
    int count = 1;
    @Option(names = "--host", description = "Interface to bind: 127.0.0.1 or 0.0.0.0.")
    String host = SimConfig.DEFAULT_HOST;
    @Option(names = "--role", description = "regular, prefill or decode.")
    String role = "regular";
    @Option(names = "--bootstrap-port", description = "Prefill role: bootstrap port of the first engine (-1 = none).")
    int bootstrapPort = SimConfig.DEFAULT_BOOTSTRAP_PORT;
    @Option(names = "--bootstrap-timeout-s", description = "Decode role: seconds to wait for a prefill room.")
    double bootstrapTimeoutS = SimConfig.DEFAULT_BOOTSTRAP_TIMEOUT.toMillis() / 1000.0;
    @Option(names = "--model", description = "Served model id.")
    String model = SimConfig.DEFAULT_MODEL;
    @Option(names = "--kv-capacity-tokens", description = "KV pool per engine, tokens (live requests + cache).")
    int kvCapacityTokens = SimConfig.DEFAULT_KV_CAPACITY_TOKENS;
    @Option(names = "--block-size", description = "Tokens per KV block.")
    int blockSize = SimConfig.DEFAULT_BLOCK_SIZE;
    @Option(names = "--chars-per-token", description = "Synthetic tokenizer's characters per token.")
    int charsPerToken = SimConfig.DEFAULT_CHARS_PER_TOKEN;
    @Option(names = "--tokenizer", description = "A Hugging Face tokenizer.json (or its model directory, with "
            + "tokenizer_config.json's chat_template); default: the synthetic tokenizer.")
    Path tokenizer;
    @Option(names = "--chat-template", description = "A Jinja chat template file overriding the tokenizer's.")
    Path chatTemplate;
    @Option(names = "--hash-algo", description = "vLLM's --prefix-caching-hash-algo: sha256, sha256_cbor, xxhash or "
            + "xxhash_cbor.")
    String hashAlgo = SimConfig.DEFAULT_HASH_ALGO.wireName();
    @Option(names = {"--hash-seed"}, description = "vLLM's PYTHONHASHSEED (block-hash root); unset: $PYTHONHASHSEED, "
            + "else random per engine.")
    String hashSeed;
    @Option(names = {"--data-parallel-size", "--dp-size"}, description = "Data-parallel ranks per engine, each with "
            + "its own KV cache and KV-event ports (+ rank).")
    int dataParallelSize = SimConfig.DEFAULT_DATA_PARALLEL_SIZE;
    @Option(names = "--kv-publisher", description = "Whose KV-event publisher to emulate: vllm or sglang.")
    String kvPublisher = SimConfig.DEFAULT_KV_PUBLISHER.wireName();
    @Option(names = "--engine-api", description = "Whose HTTP API to serve: both, sglang or vllm (engine-specific "
            + "paths of the other answer 404).")
    String engineApi = SimConfig.DEFAULT_ENGINE_API.wireName();
    @Option(names = "--kv-groups", description = "The model's KV-cache groups joined by +: full, swa:W, chunked:C, "
            + "mamba:B[:R] (e.g. full+swa:128, full+chunked:8192, full+mamba:528:4; B = --block-size).")
    String kvGroups = SimConfig.DEFAULT_KV_GROUPS;
    @Option(names = "--kv-offload-capacity-tokens", description = "CPU offload tier per rank, tokens (0 = none).")
    int kvOffloadCapacityTokens = SimConfig.DEFAULT_KV_OFFLOAD_CAPACITY_TOKENS;
    @Option(names = "--kv-offload-load-tokens-per-sec", description = "Tokens per second copied back from the CPU "
            + "tier on a hit.")
    double kvOffloadLoadTokensPerSec = SimConfig.DEFAULT_KV_OFFLOAD_LOAD_TOKENS_PER_SEC;
    @Option(names = "--prefill-tokens-per-sec", description = "Prefill throughput for uncached tokens.")
    double prefillTokensPerSec = SimConfig.DEFAULT_PREFILL_TOKENS_PER_SEC;
    @Option(names = "--prefill-overhead-ms", description = "Fixed cost of every prefill.")
    double prefillOverheadMs = SimConfig.DEFAULT_PREFILL_OVERHEAD_MS;
    @Option(names = "--decode-ms-per-token", description = "Duration of one decode step.")
    double decodeMsPerToken = SimConfig.DEFAULT_DECODE_MS_PER_TOKEN;
    @Option(names = "--max-running", description = "Requests running at once; the rest wait FIFO.")
    int maxRunning = SimConfig.DEFAULT_MAX_RUNNING;
    @Option(names = "--max-model-len", description = "Context length (prompt + max_tokens).")
    int maxModelLen = SimConfig.DEFAULT_MAX_MODEL_LEN;
    @Option(names = "--default-max-tokens", description = "Tokens generated when a request does not say.")
    int defaultMaxTokens = SimConfig.DEFAULT_MAX_TOKENS;
    @Option(names = "--time-scale", description = "Virtual seconds per wall second (10 = ten times faster).")
    double timeScale = SimConfig.DEFAULT_TIME_SCALE;
    @Option(names = "--kv-events-endpoint", description = "ZeroMQ PUB endpoint, e.g. tcp://*:5557 (port + i per engine).")
    String kvEventsEndpoint;
    @Option(names = "--kv-replay-endpoint", description = "ZeroMQ ROUTER replay endpoint, e.g. tcp://*:5600.")
    String kvReplayEndpoint;
    @Option(names = "--kv-events-layout", description = "map (current vLLM) or array (legacy).")
    String kvEventsLayout = "map";
    @Option(names = "--kv-events-int-hashes", arity = "1", description = "vLLM's VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES: "
            + "publish 64-bit ids (true) or the full digests as bytes (false).")
    boolean kvEventsIntHashes = SimConfig.DEFAULT_KV_EVENTS_INT_HASHES;
    @Option(names = "--kv-events-topic", description = "Topic (frame 0) of KV-event messages.")
    String kvEventsTopic = SimConfig.DEFAULT_KV_EVENTS_TOPIC;
    @Option(names = "--kv-replay-buffer-steps", description = "KV-event batches kept for replay.")
    int kvReplayBufferSteps = SimConfig.DEFAULT_KV_REPLAY_BUFFER_STEPS;
    @Option(names = "--seed", description = "Seed of output tokens and injected errors (engine i uses seed + i).")
    long seed = SimConfig.DEFAULT_SEED;
    @Option(names = "--embedding-dim", description = "Length of /v1/embeddings vectors.")
    int embeddingDim = SimConfig.DEFAULT_EMBEDDING_DIM;
    @Option(names = "--fault-error-rate", description = "Fraction of inference requests answered with an error.")
    double faultErrorRate = Faults.NONE.errorRate();
    @Option(names = "--fault-error-status", description = "HTTP status of injected errors.")
    int faultErrorStatus = Faults.DEFAULT_ERROR_STATUS;
    @Option(names = "--fault-health-failing", description = "/health and /health_generate answer 503.")
    boolean faultHealthFailing;
    @Option(names = "--fault-hang", description = "Accept inference requests and never answer.")
    boolean faultHang;
    @Option(names = "--fault-added-latency-ms", description = "Delay before each inference request is served.")
    long faultAddedLatencyMs;
    @Option(names = "--fault-drop-after-chunks", description = "Close the connection after N streamed chunks (-1 off).")
    int faultDropAfterChunks = Faults.NONE.dropAfterChunks();
    @Option(names = "--fault-stop-kv-events", description = "Do not publish KV events at all.")
    boolean faultStopKvEvents;
    @Option(names = "--fault-drop-kv-events", description = "Sequence and buffer KV events but do not send them live.")
    boolean faultDropKvEvents;

    /** Builds the base configuration (engine 0) from the flags. */
    SimConfig config() {
        Faults faults = new Faults(faultErrorRate, faultErrorStatus, faultHealthFailing, faultHang, faultAddedLatencyMs,
                faultDropAfterChunks, faultStopKvEvents, faultDropKvEvents);
        return SimConfig.builder().host(host).port(port).model(model).role(EngineRole.parse(role))
                .bootstrapPort(bootstrapPort).bootstrapTimeout(Duration.ofMillis(Math.round(bootstrapTimeoutS * 1000)))
                .kvCapacityTokens(kvCapacityTokens).blockSize(blockSize).charsPerToken(charsPerToken)
                .hashAlgo(HashAlgo.parse(hashAlgo))
                .hashSeed(hashSeed != null ? hashSeed : System.getenv("PYTHONHASHSEED"))
                .tokenizer(tokenizer).chatTemplate(chatTemplate).dataParallelSize(dataParallelSize)
                .kvPublisher(KvPublisherKind.parse(kvPublisher)).engineApi(EngineApi.parse(engineApi)).kvGroups(kvGroups)
                .kvOffloadCapacityTokens(kvOffloadCapacityTokens)
                .kvOffloadLoadTokensPerSec(kvOffloadLoadTokensPerSec).prefillTokensPerSec(prefillTokensPerSec).prefillOverheadMs(prefillOverheadMs)
                .decodeMsPerToken(decodeMsPerToken).maxRunning(maxRunning).maxModelLen(maxModelLen)
                .defaultMaxTokens(defaultMaxTokens).timeScale(timeScale).kvEventsEndpoint(kvEventsEndpoint)
                .kvReplayEndpoint(kvReplayEndpoint).kvEventsLayout(KvEventLayout.parse(kvEventsLayout))
                .kvEventsIntHashes(kvEventsIntHashes)
                .kvEventsTopic(kvEventsTopic).kvReplayBufferSteps(kvReplayBufferSteps).seed(seed)
                .embeddingDim(embeddingDim).faults(faults).build();
    }

    @Override
    public Integer call() throws InterruptedException {
        SimConfig base;
        try {
            base = config();
        } catch (IllegalArgumentException e) {
            System.err.println("caravan sim: " + e.getMessage());
            return 2;
        }
        SimFleet fleet;
        try {
            fleet = SimFleet.start(count, base);
        } catch (RuntimeException e) {
            System.err.println("caravan sim: " + e.getMessage());
            return 1;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            fleet.close();
            stop.countDown();
        }, "sim-shutdown"));
        for (SimEngine e : fleet.engines()) {
            StringBuilder line = new StringBuilder(e.url());
            line.append("  role=").append(e.config().role().name().toLowerCase());
            if (e.bootstrapPort() > 0) {
                line.append(" bootstrap=").append(e.bootstrapPort());
            }
            if (!e.kvEventsEndpoints().isEmpty()) {
                line.append(" kv-events=").append(String.join(",", e.kvEventsEndpoints()));
            }
            if (e.kvReplayEndpoint() != null) {
                line.append(" kv-replay=").append(String.join(",", e.kvReplayEndpoints()));
            }
            if (e.dataParallelSize() > 1) {
                line.append(" dp=").append(e.dataParallelSize());
            }
            System.out.println(line);
        }
        System.out.flush();
        stop.await();
        return 0;
    }

    public static void main(String[] args) {
        int code = new CommandLine(new SimMain()).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }
}
