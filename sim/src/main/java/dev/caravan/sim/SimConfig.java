package dev.caravan.sim;

import java.nio.file.Path;
import java.time.Duration;

import dev.caravan.sim.engine.TimeModel;
import dev.caravan.sim.engine.hybrid.KvGroupLayout;
import dev.caravan.sim.hash.HashAlgo;
import dev.caravan.sim.hash.VllmBlockHasher;
import dev.caravan.sim.kv.KvEventLayout;
import dev.caravan.sim.kv.KvEventPublisher;
import dev.caravan.sim.kv.KvPublisherKind;
import dev.caravan.sim.text.SyntheticTokenizer;

/**
 * Everything one simulated engine is configured with. Defaults model one H100 serving Llama-3-8B; docs/simulator.md
 * derives each. Validated at construction; build with {@link #builder()}.
 *
 * @param host                 interface to bind (127.0.0.1 or 0.0.0.0)
 * @param port                 HTTP port; 0 = ephemeral (see {@link SimEngine#port()})
 * @param model                model id served by /v1/models and echoed in responses
 * @param role                 regular, prefill or decode
 * @param bootstrapPort        prefill role: port of the bootstrap endpoint; -1 = none, 0 = ephemeral
 * @param bootstrapTimeout     decode role: how long a request waits for its prefill room
 * @param kvCapacityTokens     KV pool size in tokens, shared by live requests and cached prefixes
 * @param blockSize            tokens per KV block (also the hashing unit; SGLang's page size)
 * @param charsPerToken        synthetic tokenizer's code points per token (without {@code tokenizer})
 * @param hashAlgo             vLLM's {@code --prefix-caching-hash-algo} (the vLLM publisher's block hashes)
 * @param hashSeed             vLLM's {@code PYTHONHASHSEED}: the hash root; null = random per engine (and per rank)
 * @param tokenizer            a Hugging Face {@code tokenizer.json} (or its directory), or null for the synthetic one
 * @param chatTemplate         a Jinja chat template overriding the tokenizer's, or null
 * @param dataParallelSize     data-parallel ranks served by this engine, each with its own KV cache and publisher
 * @param kvPublisher          whose KV-event publisher (payloads, ids, replay replies) to emulate
 * @param kvOffloadCapacityTokens CPU offload tier per rank, tokens; 0 = none
 * @param kvOffloadLoadTokensPerSec prompt tokens copied back from the CPU tier per second
 * @param prefillTokensPerSec  prefill throughput for uncached tokens
 * @param prefillOverheadMs    fixed cost of every prefill
 * @param decodeMsPerToken     one decode step
 * @param maxRunning           requests running at once (vLLM max_num_seqs); the rest wait FIFO
 * @param maxModelLen          context limit: prompt + max_tokens above it is a 400, as in vLLM
 * @param defaultMaxTokens     tokens generated when a request does not say
 * @param timeScale            virtual seconds per wall second (10 = everything ten times faster)
 * @param kvEventsEndpoint     ZeroMQ PUB endpoint for KV events, or null for none
 * @param kvReplayEndpoint     ZeroMQ ROUTER endpoint for replay, or null for none
 * @param kvEventsLayout       map (current vLLM) or array (legacy)
 * @param kvEventsIntHashes    vLLM's {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES}: 64-bit ids (true) or full digests
 * @param kvEventsTopic        frame-0 topic of every KV-event message
 * @param kvReplayBufferSteps  batches kept for replay
 * @param seed                 seed of output tokens and injected errors
 * @param embeddingDim         length of /v1/embeddings vectors
 * @param faults               faults active from start
 * @param engineApi            whose HTTP API to serve: vLLM's, SGLang's, or both (the default: every client works)
 * @param kvGroups             the model's KV-cache groups ({@link KvGroupLayout}): {@code full} (one group, the
 *                             default), or a hybrid layout such as {@code full+swa:128}, {@code full+chunked:8192},
 *                             {@code full+mamba:528:4}; hybrid layouts need the vLLM publisher and no CPU tier
 */
public record SimConfig(String host, int port, String model, EngineRole role, int bootstrapPort,
                        Duration bootstrapTimeout, int kvCapacityTokens, int blockSize, int charsPerToken,
                        HashAlgo hashAlgo, String hashSeed, Path tokenizer, Path chatTemplate, int dataParallelSize,
                        KvPublisherKind kvPublisher, int kvOffloadCapacityTokens, double kvOffloadLoadTokensPerSec,
                        double prefillTokensPerSec, double prefillOverheadMs, double decodeMsPerToken,
                        int maxRunning, int maxModelLen, int defaultMaxTokens, double timeScale,
                        String kvEventsEndpoint, String kvReplayEndpoint, KvEventLayout kvEventsLayout,
                        boolean kvEventsIntHashes, String kvEventsTopic, int kvReplayBufferSteps, long seed,
                        int embeddingDim, Faults faults, EngineApi engineApi, String kvGroups) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 0;
    public static final String DEFAULT_MODEL = "meta-llama/Meta-Llama-3-8B-Instruct";
    public static final int DEFAULT_BOOTSTRAP_PORT = -1;
    /** SGLang's disaggregation waiting timeout (SGLANG_DISAGGREGATION_WAITING_TIMEOUT). */
    public static final Duration DEFAULT_BOOTSTRAP_TIMEOUT = Duration.ofSeconds(300);
    /** 52.32 GiB KV pool of an 80 GB H100 / 128 KiB per Llama-3-8B token (docs/simulator.md). */
    public static final int DEFAULT_KV_CAPACITY_TOKENS = 428_569;
    public static final int DEFAULT_BLOCK_SIZE = VllmBlockHasher.DEFAULT_BLOCK_SIZE;
    public static final int DEFAULT_CHARS_PER_TOKEN = SyntheticTokenizer.DEFAULT_CHARS_PER_TOKEN;
    /** vLLM's default {@code --prefix-caching-hash-algo}. */
    public static final HashAlgo DEFAULT_HASH_ALGO = HashAlgo.SHA256;
    /** No {@code PYTHONHASHSEED}: a random hash root per engine process, as a stock vLLM. */
    public static final String DEFAULT_HASH_SEED = null;
    public static final int DEFAULT_DATA_PARALLEL_SIZE = 1;
    public static final int MAX_DATA_PARALLEL_SIZE = 64;
    public static final KvPublisherKind DEFAULT_KV_PUBLISHER = KvPublisherKind.VLLM;
    public static final int DEFAULT_KV_OFFLOAD_CAPACITY_TOKENS = 0;
    public static final double DEFAULT_KV_OFFLOAD_LOAD_TOKENS_PER_SEC = TimeModel.DEFAULT_OFFLOAD_LOAD_TOKENS_PER_SEC;
    /**
     * With the overhead below, a 2,048-token prefill takes 2048/24000 s + 0.7 ms = 86.0 ms: 34.0 TFLOP at 40 % of the
     * H100's bf16 peak (docs/simulator.md).
     */
    public static final double DEFAULT_PREFILL_TOKENS_PER_SEC = 24_000;
    public static final double DEFAULT_PREFILL_OVERHEAD_MS = 0.7;
    /** ~16 GB of bf16 weights read per step at ~60% of the H100's 3.35 TB/s. */
    public static final double DEFAULT_DECODE_MS_PER_TOKEN = 8.0;
    /** vLLM's classic max_num_seqs. */
    public static final int DEFAULT_MAX_RUNNING = 256;
    /** Llama-3-8B's context length. */
    public static final int DEFAULT_MAX_MODEL_LEN = 8192;
    /** OpenAI's completions default for max_tokens. */
    public static final int DEFAULT_MAX_TOKENS = 16;
    public static final double DEFAULT_TIME_SCALE = 1.0;
    public static final KvEventLayout DEFAULT_KV_EVENTS_LAYOUT = KvEventLayout.MAP;
    /** vLLM's default ({@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1}): ids are the digests' low 64 bits. */
    public static final boolean DEFAULT_KV_EVENTS_INT_HASHES = true;
    public static final String DEFAULT_KV_EVENTS_TOPIC = "";
    public static final int DEFAULT_KV_REPLAY_BUFFER_STEPS = KvEventPublisher.DEFAULT_BUFFER_STEPS;
    public static final long DEFAULT_SEED = 0;
    public static final int DEFAULT_EMBEDDING_DIM = 256;
    public static final EngineApi DEFAULT_ENGINE_API = EngineApi.BOTH;
    public static final String DEFAULT_KV_GROUPS = KvGroupLayout.SINGLE;

    public SimConfig {
        require(host != null && !host.isBlank(), "host must be set, was '" + host + "'");
        require(port >= 0 && port <= 65535, "port must be in [0,65535], was " + port);
        require(model != null && !model.isBlank(), "model must be set, was '" + model + "'");
        require(role != null, "role must be set");
        require(bootstrapPort >= -1 && bootstrapPort <= 65535, "bootstrapPort must be in [-1,65535], was "
                + bootstrapPort);
        require(bootstrapTimeout != null && !bootstrapTimeout.isNegative() && !bootstrapTimeout.isZero(),
                "bootstrapTimeout must be > 0, was " + bootstrapTimeout);
        require(blockSize >= 1 && blockSize <= 4096, "blockSize must be in [1,4096], was " + blockSize);
        require(kvCapacityTokens >= blockSize, "kvCapacityTokens must be >= blockSize (" + blockSize + "), was "
                + kvCapacityTokens);
        require(charsPerToken >= 1 && charsPerToken <= 64, "charsPerToken must be in [1,64], was " + charsPerToken);
        require(hashAlgo != null, "hashAlgo must be set");
        require(dataParallelSize >= 1 && dataParallelSize <= MAX_DATA_PARALLEL_SIZE, "dataParallelSize must be in [1,"
                + MAX_DATA_PARALLEL_SIZE + "], was " + dataParallelSize);
        require(kvPublisher != null, "kvPublisher must be set");
        require(engineApi != null, "engineApi must be set");
        require(kvOffloadCapacityTokens == 0 || kvOffloadCapacityTokens >= blockSize,
                "kvOffloadCapacityTokens must be 0 or >= blockSize (" + blockSize + "), was " + kvOffloadCapacityTokens);
        require(kvOffloadLoadTokensPerSec > 0 && Double.isFinite(kvOffloadLoadTokensPerSec),
                "kvOffloadLoadTokensPerSec must be > 0, was " + kvOffloadLoadTokensPerSec);
        require(chatTemplate == null || tokenizer != null, "chatTemplate needs tokenizer, was " + chatTemplate);
        require(prefillTokensPerSec > 0 && Double.isFinite(prefillTokensPerSec),
                "prefillTokensPerSec must be > 0, was " + prefillTokensPerSec);
        require(prefillOverheadMs >= 0 && Double.isFinite(prefillOverheadMs),
                "prefillOverheadMs must be >= 0, was " + prefillOverheadMs);
        require(decodeMsPerToken > 0 && Double.isFinite(decodeMsPerToken),
                "decodeMsPerToken must be > 0, was " + decodeMsPerToken);
        require(maxRunning >= 1, "maxRunning must be >= 1, was " + maxRunning);
        require(maxModelLen >= 2, "maxModelLen must be >= 2, was " + maxModelLen);
        require(defaultMaxTokens >= 1 && defaultMaxTokens < maxModelLen,
                "defaultMaxTokens must be in [1," + (maxModelLen - 1) + "], was " + defaultMaxTokens);
        require(timeScale > 0 && timeScale <= 100_000, "timeScale must be in (0,100000], was " + timeScale);
        require(kvEventsLayout != null, "kvEventsLayout must be set");
        require(kvEventsTopic != null, "kvEventsTopic must not be null");
        require(kvReplayBufferSteps >= 1, "kvReplayBufferSteps must be >= 1, was " + kvReplayBufferSteps);
        require(kvReplayEndpoint == null || kvEventsEndpoint != null,
                "kvReplayEndpoint needs kvEventsEndpoint, was " + kvReplayEndpoint);
        require(embeddingDim >= 1 && embeddingDim <= 65_536, "embeddingDim must be in [1,65536], was " + embeddingDim);
        require(bootstrapPort < 0 || role == EngineRole.PREFILL,
                "bootstrapPort only applies to role prefill, was " + bootstrapPort + " with role " + role);
        require(faults != null, "faults must not be null (use Faults.NONE)");
        KvGroupLayout groups = KvGroupLayout.parse(kvGroups, blockSize);
        require(groups.isSingleGroup() || kvPublisher == KvPublisherKind.VLLM,
                "kvGroups " + kvGroups + " needs kvPublisher vllm (hybrid groups are vLLM's), was " + kvPublisher);
        require(groups.isSingleGroup() || kvOffloadCapacityTokens == 0,
                "kvGroups " + kvGroups + " has no CPU tier, kvOffloadCapacityTokens must be 0, was "
                        + kvOffloadCapacityTokens);
    }

    /** The KV-cache groups of {@link #kvGroups()}, parsed. */
    public KvGroupLayout kvGroupLayout() {
        return KvGroupLayout.parse(kvGroups, blockSize);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** KV pool size in whole blocks. */
    public int kvCapacityBlocks() {
        return kvCapacityTokens / blockSize;
    }

    /** CPU offload tier in whole blocks (0 = none). */
    public int kvOffloadCapacityBlocks() {
        return kvOffloadCapacityTokens / blockSize;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Mutable builder starting from the defaults. */
    public static final class Builder {
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private String model = DEFAULT_MODEL;
        private EngineRole role = EngineRole.REGULAR;
        private int bootstrapPort = DEFAULT_BOOTSTRAP_PORT;
        private Duration bootstrapTimeout = DEFAULT_BOOTSTRAP_TIMEOUT;
        private int kvCapacityTokens = DEFAULT_KV_CAPACITY_TOKENS;
        private int blockSize = DEFAULT_BLOCK_SIZE;
        private int charsPerToken = DEFAULT_CHARS_PER_TOKEN;
        private HashAlgo hashAlgo = DEFAULT_HASH_ALGO;
        private String hashSeed = DEFAULT_HASH_SEED;
        private Path tokenizer;
        private Path chatTemplate;
        private int dataParallelSize = DEFAULT_DATA_PARALLEL_SIZE;
        private KvPublisherKind kvPublisher = DEFAULT_KV_PUBLISHER;
        private int kvOffloadCapacityTokens = DEFAULT_KV_OFFLOAD_CAPACITY_TOKENS;
        private double kvOffloadLoadTokensPerSec = DEFAULT_KV_OFFLOAD_LOAD_TOKENS_PER_SEC;
        private double prefillTokensPerSec = DEFAULT_PREFILL_TOKENS_PER_SEC;
        private double prefillOverheadMs = DEFAULT_PREFILL_OVERHEAD_MS;
        private double decodeMsPerToken = DEFAULT_DECODE_MS_PER_TOKEN;
        private int maxRunning = DEFAULT_MAX_RUNNING;
        private int maxModelLen = DEFAULT_MAX_MODEL_LEN;
        private int defaultMaxTokens = DEFAULT_MAX_TOKENS;
        private double timeScale = DEFAULT_TIME_SCALE;
        private String kvEventsEndpoint;
        private String kvReplayEndpoint;
        private KvEventLayout kvEventsLayout = DEFAULT_KV_EVENTS_LAYOUT;
        private boolean kvEventsIntHashes = DEFAULT_KV_EVENTS_INT_HASHES;
        private String kvEventsTopic = DEFAULT_KV_EVENTS_TOPIC;
        private int kvReplayBufferSteps = DEFAULT_KV_REPLAY_BUFFER_STEPS;
        private long seed = DEFAULT_SEED;
        private int embeddingDim = DEFAULT_EMBEDDING_DIM;
        private Faults faults = Faults.NONE;
        private EngineApi engineApi = DEFAULT_ENGINE_API;
        private String kvGroups = DEFAULT_KV_GROUPS;

        private Builder() {
        }

        private Builder(SimConfig c) {
            host = c.host;
            port = c.port;
            model = c.model;
            role = c.role;
            bootstrapPort = c.bootstrapPort;
            bootstrapTimeout = c.bootstrapTimeout;
            kvCapacityTokens = c.kvCapacityTokens;
            blockSize = c.blockSize;
            charsPerToken = c.charsPerToken;
            hashAlgo = c.hashAlgo;
            hashSeed = c.hashSeed;
            tokenizer = c.tokenizer;
            chatTemplate = c.chatTemplate;
            dataParallelSize = c.dataParallelSize;
            kvPublisher = c.kvPublisher;
            kvOffloadCapacityTokens = c.kvOffloadCapacityTokens;
            kvOffloadLoadTokensPerSec = c.kvOffloadLoadTokensPerSec;
            prefillTokensPerSec = c.prefillTokensPerSec;
            prefillOverheadMs = c.prefillOverheadMs;
            decodeMsPerToken = c.decodeMsPerToken;
            maxRunning = c.maxRunning;
            maxModelLen = c.maxModelLen;
            defaultMaxTokens = c.defaultMaxTokens;
            timeScale = c.timeScale;
            kvEventsEndpoint = c.kvEventsEndpoint;
            kvReplayEndpoint = c.kvReplayEndpoint;
            kvEventsLayout = c.kvEventsLayout;
            kvEventsIntHashes = c.kvEventsIntHashes;
            kvEventsTopic = c.kvEventsTopic;
            kvReplayBufferSteps = c.kvReplayBufferSteps;
            seed = c.seed;
            embeddingDim = c.embeddingDim;
            faults = c.faults;
            engineApi = c.engineApi;
            kvGroups = c.kvGroups;
        }

        public Builder host(String v) { host = v; return this; }
        public Builder port(int v) { port = v; return this; }
        public Builder model(String v) { model = v; return this; }
        public Builder role(EngineRole v) { role = v; return this; }
        public Builder bootstrapPort(int v) { bootstrapPort = v; return this; }
        public Builder bootstrapTimeout(Duration v) { bootstrapTimeout = v; return this; }
        public Builder kvCapacityTokens(int v) { kvCapacityTokens = v; return this; }
        public Builder blockSize(int v) { blockSize = v; return this; }
        public Builder charsPerToken(int v) { charsPerToken = v; return this; }
        public Builder hashAlgo(HashAlgo v) { hashAlgo = v; return this; }
        /** vLLM's PYTHONHASHSEED; null = a random root per engine. */
        public Builder hashSeed(String v) { hashSeed = v; return this; }
        public Builder tokenizer(Path v) { tokenizer = v; return this; }
        public Builder chatTemplate(Path v) { chatTemplate = v; return this; }
        public Builder dataParallelSize(int v) { dataParallelSize = v; return this; }
        public Builder kvPublisher(KvPublisherKind v) { kvPublisher = v; return this; }
        public Builder kvOffloadCapacityTokens(int v) { kvOffloadCapacityTokens = v; return this; }
        public Builder kvOffloadLoadTokensPerSec(double v) { kvOffloadLoadTokensPerSec = v; return this; }
        public Builder prefillTokensPerSec(double v) { prefillTokensPerSec = v; return this; }
        public Builder prefillOverheadMs(double v) { prefillOverheadMs = v; return this; }
        public Builder decodeMsPerToken(double v) { decodeMsPerToken = v; return this; }
        public Builder maxRunning(int v) { maxRunning = v; return this; }
        public Builder maxModelLen(int v) { maxModelLen = v; return this; }
        public Builder defaultMaxTokens(int v) { defaultMaxTokens = v; return this; }
        public Builder timeScale(double v) { timeScale = v; return this; }
        public Builder kvEventsEndpoint(String v) { kvEventsEndpoint = v; return this; }
        public Builder kvReplayEndpoint(String v) { kvReplayEndpoint = v; return this; }
        public Builder kvEventsLayout(KvEventLayout v) { kvEventsLayout = v; return this; }
        public Builder kvEventsIntHashes(boolean v) { kvEventsIntHashes = v; return this; }
        public Builder kvEventsTopic(String v) { kvEventsTopic = v; return this; }
        public Builder kvReplayBufferSteps(int v) { kvReplayBufferSteps = v; return this; }
        public Builder seed(long v) { seed = v; return this; }
        public Builder embeddingDim(int v) { embeddingDim = v; return this; }
        public Builder faults(Faults v) { faults = v; return this; }
        public Builder engineApi(EngineApi v) { engineApi = v; return this; }
        /** The model's KV-cache groups, e.g. {@code full+swa:128} ({@link KvGroupLayout}). */
        public Builder kvGroups(String v) { kvGroups = v; return this; }

        public SimConfig build() {
            return new SimConfig(host, port, model, role, bootstrapPort, bootstrapTimeout, kvCapacityTokens, blockSize,
                    charsPerToken, hashAlgo, hashSeed, tokenizer, chatTemplate, dataParallelSize, kvPublisher,
                    kvOffloadCapacityTokens, kvOffloadLoadTokensPerSec, prefillTokensPerSec, prefillOverheadMs,
                    decodeMsPerToken, maxRunning, maxModelLen, defaultMaxTokens, timeScale, kvEventsEndpoint,
                    kvReplayEndpoint, kvEventsLayout, kvEventsIntHashes, kvEventsTopic, kvReplayBufferSteps, seed,
                    embeddingDim, faults, engineApi, kvGroups);
        }
    }
}
