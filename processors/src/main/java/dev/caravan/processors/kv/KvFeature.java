package dev.caravan.processors.kv;

import static dev.caravan.processors.config.FlagType.BOOLEAN;
import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.tokens.HfTokenizer;

/**
 * KV events and kv_aware (docs/kv-events.md).
 */
public final class KvFeature implements Feature {

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag KV_TOKENIZER = ROWS.option(PolicyConfig.KV_TOKENIZER, STRING, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_TOKENIZER).checkedBy("kv_aware when it loads the tokenizer")
            .describe("kv_aware: 'pseudo' (the engine simulator's tokenizer) or the path of the model's HuggingFace "
                    + "tokenizer.json, used on the routing text when no prompt tokens are available; prefer "
                    + "--model-path, which gives chat requests the engine's own tokens (docs/tokens.md).");
    public static final CaravanFlag KV_ADD_SPECIAL_TOKENS = ROWS.row("--kv-add-special-tokens",
            "caravan.kv.add-special-tokens", BOOLEAN, Sections.KV)
            .defaultValue(HfTokenizer.DEFAULT_ADD_SPECIAL_TOKENS)
            .describe("kv_aware with --kv-tokenizer: add the tokenizer's special tokens (BOS...) when encoding the "
                    + "routing text, as vLLM's /v1/completions does (true); false for engines fed pre-rendered prompts "
                    + "encoded without them. Prompt tokens (--model-path) follow the engine's rules instead "
                    + "(docs/tokens.md).");
    public static final CaravanFlag KV_CHARS_PER_TOKEN = ROWS.option(PolicyConfig.KV_CHARS_PER_TOKEN, INT, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_CHARS_PER_TOKEN)
            .range(KvAwareConfig.MIN_CHARS_PER_TOKEN, KvAwareConfig.MAX_CHARS_PER_TOKEN)
            .describe("Characters per token: the pseudo-tokenizer's (the simulator's --chars-per-token), and the "
                    + "estimate the tree calibration and 'auto' tree size use.");
    public static final CaravanFlag KV_BLOCK_SIZE = ROWS.option(PolicyConfig.KV_BLOCK_SIZE, INT, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_BLOCK_SIZE)
            .range(KvAwareConfig.MIN_BLOCK_SIZE, KvAwareConfig.MAX_BLOCK_SIZE)
            .describe("Tokens per KV block assumed until an engine reports its own (every BlockStored does; SGLang's "
                    + "page size); also the tree calibration's.");
    public static final CaravanFlag KV_HASH_SEED = ROWS.option(PolicyConfig.KV_HASH_SEED, STRING, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_HASH_SEED)
            .describe("Accepted and ignored: kv_aware keys blocks by its own hash of token ids, so the engines' "
                    + "PYTHONHASHSEED and hash algorithm no longer matter.");
    public static final CaravanFlag KV_OVERLAP_WEIGHT = ROWS.option(PolicyConfig.KV_OVERLAP_WEIGHT, DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_OVERLAP_WEIGHT).checkedBy(FlagRows.BY_POLICY)
            .describe("kv_aware: cost = weight x uncached prefill blocks + active blocks, lowest wins (Dynamo's "
                    + "--kv-overlap-score-weight, whose default is 1).");
    public static final CaravanFlag KV_DECODE_LOAD_SOURCE = ROWS.option(PolicyConfig.KV_DECODE_LOAD_SOURCE,
            STRING, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_DECODE_LOAD_SOURCE.name().toLowerCase(Locale.ROOT))
            .oneOf(Choices.of(Arrays.stream(KvAwareConfig.DecodeLoadSource.values())
                    .map(v -> v.name().toLowerCase(Locale.ROOT)).toList()))
            .describe("kv_aware: active blocks from 'router' (distinct blocks of this gateway's in-flight requests "
                    + "per engine rank) or 'engine' (the engine's reported token load).");
    public static final CaravanFlag KV_CPU_WEIGHT = ROWS.option(PolicyConfig.KV_CPU_WEIGHT, DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_CPU_WEIGHT).range(0.0, 1.0)
            .describe("kv_aware: what a block in the engine's host-memory tier (medium CPU, CPU_PINNED) saves, "
                    + "relative to a GPU block.");
    public static final CaravanFlag KV_DISK_WEIGHT = ROWS.option(PolicyConfig.KV_DISK_WEIGHT, DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_DISK_WEIGHT).range(0.0, 1.0)
            .describe("kv_aware: what a block in the engine's storage tier (medium STORAGE, DISK) saves, relative to "
                    + "a GPU block.");
    public static final CaravanFlag KV_ROUTER_TEMPERATURE = ROWS.option(PolicyConfig.KV_ROUTER_TEMPERATURE,
            DOUBLE, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_TEMPERATURE).checkedBy(FlagRows.BY_POLICY)
            .describe("kv_aware: 0 = the lowest cost wins; > 0 = sample workers by softmax of their normalised "
                    + "costs (Dynamo's --router-temperature).");
    public static final CaravanFlag KV_DISCOUNT_SHARED_PREFIX = ROWS.option(PolicyConfig.KV_DISCOUNT_SHARED_PREFIX,
            BOOLEAN, Sections.KV)
            .defaultValue(KvAwareConfig.DEFAULT_DISCOUNT_SHARED_PREFIX)
            .describe("kv_aware: cached blocks count only beyond the request's shared branch point (a prefix at "
                    + "least 1/N of the routed requests pass through and go on from in more than one way, N engine "
                    + "ranks), so a hot tenant and new conversations after a common preamble choose by load.");
    public static final CaravanFlag KV_EVENTS_ENDPOINT_TEMPLATE = ROWS.row("--kv-events-endpoint-template",
            "caravan.kv.events-endpoint-template", STRING, Sections.KV)
            .describe("KV-event PUB endpoint of workers registered without one, from their URL: {host} and {port} are "
                    + "replaced, e.g. tcp://{host}:5557.");
    public static final CaravanFlag KV_REPLAY_ENDPOINT_TEMPLATE = ROWS.row("--kv-replay-endpoint-template",
            "caravan.kv.replay-endpoint-template", STRING, Sections.KV)
            .describe("KV-event replay (ROUTER) endpoint of workers registered without one, e.g. tcp://{host}:5558.");
    public static final CaravanFlag KV_EVENTS_TOPIC = ROWS.row("--kv-events-topic", "caravan.kv.events-topic",
            STRING, Sections.KV)
            .describe("Topic prefixes (comma-separated) the KV-event subscriptions filter on; empty = all.");
    public static final CaravanFlag KV_REPLAY_TIMEOUT_SECS = ROWS.row("--kv-replay-timeout-secs",
            "caravan.kv.replay-timeout-secs", LONG, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_REPLAY_TIMEOUT.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("Longest wait for one replay of missed KV-event batches, in seconds.");
    public static final CaravanFlag KV_MAX_BLOCKS_PER_WORKER = ROWS.row("--kv-max-blocks-per-worker",
            "caravan.kv.max-blocks-per-worker", INT, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_MAX_BLOCKS_PER_WORKER).min(1)
            .describe("Block index bound per engine rank (oldest dropped beyond it); set above the largest engine's "
                    + "blocks (KV pool tokens / block size; SGLang's page size is often 1).");
    public static final CaravanFlag KV_SILENCE_THRESHOLD_SECS = ROWS.row("--kv-silence-threshold-secs",
            "caravan.kv.silence-threshold-secs", LONG, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_SILENCE_THRESHOLD.toSeconds()).range(0, FlagRows.MAX_SECONDS)
            .describe("Warn (and set caravan_kv_publisher_silent) when a worker served requests but its KV publisher "
                    + "was silent this long; 0 disables.");
    public static final CaravanFlag KV_CALIBRATE_TREE = ROWS.row("--kv-calibrate-tree", "caravan.kv.calibrate-tree",
            BOOLEAN, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_CALIBRATE_TREE)
            .describe("cache_aware: evict from a worker's tree what its engine reports evicting (BlockRemoved), and "
                    + "drop its tenancy when the engine clears or restarts.");
    public static final CaravanFlag KV_PARITY_EXPIRY_SECS = ROWS.row("--kv-parity-expiry-secs",
            "caravan.kv.parity-expiry-secs", LONG, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_PARITY_EXPIRY.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("kv_aware self-check: seconds a predicted block may wait for the engine's BlockStored before it "
                    + "counts as a miss.");
    public static final CaravanFlag KV_PARITY_WARN_BELOW = ROWS.row("--kv-parity-warn-below", "caravan.kv.parity-warn-below",
            DOUBLE, Sections.KV)
            .defaultValue(KvSettings.DEFAULT_PARITY_WARN_BELOW).range(0.0, 1.0)
            .describe("kv_aware self-check: warn when the recent agreement of predicted and reported blocks drops "
                    + "below this.");
    public static final CaravanFlag KV_PARITY_FALLBACK = ROWS.row("--kv-parity-fallback", "caravan.kv.parity-fallback",
            BOOLEAN, Sections.KV)
            .defaultValue(false)
            .describe("kv_aware: while the self-check is degraded (below --kv-parity-warn-below), route by cache_aware "
                    + "(same options) except one request in 8, which keeps checking kv_aware's predictions.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }
}
