package dev.caravan.processors.control;

import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * Each engine's own API (docs/sglang-compat.md): the engine type and data-parallel ranks of workers, engine paths, the rank pin, the cache flush, server and model info, and the Responses API's return to the engine that stored a response.
 */
public final class EngineApiFeature implements Feature {

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag BACKEND = ROWS.row("--backend", "caravan.backend",
            STRING, Sections.WORKERS).alias("--runtime")
            .defaultValue(GatewayConfig.DEFAULT_BACKEND).oneOf("sglang", "vllm", "trtllm", "openai", "anthropic")
            .refusing("Caravan routes to SGLang and vLLM engines over HTTP; gRPC runtimes and external APIs are not "
                    + "implemented", "trtllm", "openai", "anthropic")
            .describe("Engine type of workers registered without one (runtime in POST /workers) and not yet detected: "
                    + "sglang or vllm. It picks a worker's cache-flush endpoint and the engine paths of tokenize, "
                    + "detokenize and classify (docs/sglang-compat.md).");
    public static final CaravanFlag DP_AWARE = ROWS.row("--dp-aware", "caravan.dp-aware", SWITCH, Sections.WORKERS)
            .defaultValue(false)
            .differs("ranks are workers url@rank and requests are pinned to them as in SGLang, kv_aware scoring each "
                    + "rank on its own blocks; P/D prefill ranks are not passed to decode (disagg_prefill_dp_rank)")
            .describe("Route to each data-parallel rank of an engine as its own worker url@rank: the engine's dp_size "
                    + "is read from its /get_server_info at registration, and the chosen rank is pinned with "
                    + "data_parallel_rank in the body (SGLang) and the X-data-parallel-rank header (vLLM).");
    public static final CaravanFlag WORKER_STARTUP_TIMEOUT_SECS = ROWS.row("--worker-startup-timeout-secs",
            "caravan.worker-startup-timeout-secs", LONG, Sections.WORKERS)
            .defaultValue(GatewayConfig.DEFAULT_WORKER_STARTUP_TIMEOUT_SECS).range(1, FlagRows.MAX_SECONDS)
            .differs("only --dp-aware waits for an engine (to read its ranks); every other worker is registered at "
                    + "once and serves when its health checks pass")
            .describe("--dp-aware: how long registration keeps asking a new engine for its dp_size before it "
                    + "registers the engine as one worker.");
    public static final CaravanFlag WORKER_STARTUP_CHECK_INTERVAL = ROWS.row("--worker-startup-check-interval",
            "caravan.worker-startup-check-interval", LONG, Sections.WORKERS)
            .defaultValue(GatewayConfig.DEFAULT_WORKER_STARTUP_CHECK_INTERVAL_SECS).range(1, FlagRows.MAX_SECONDS)
            .differs("only --dp-aware waits for an engine; SGLang's load monitor also ran at this interval, "
                    + "Caravan's runs at --load-check-interval")
            .describe("--dp-aware: seconds between two attempts to read a new engine's dp_size.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
