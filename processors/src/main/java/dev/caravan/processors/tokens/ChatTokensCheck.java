package dev.caravan.processors.tokens;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;

/**
 * Whether kv_aware gets the engine's own tokens for each model's chat requests, checked as workers join. A model with
 * local files ({@code --model-path}) has them here. A model without gets them from its workers' {@code /tokenize}
 * when the engine source is on ({@code --tokens-source auto} under kv_aware, or {@code engine}) and the engine renders
 * chat there (vLLM): the first worker of the model is asked for the {@link TokenizerCheck#PROBE} conversation, again
 * with growing delays while it does not answer (starting), and an answer other than 200 (a {@code /tokenize} that does
 * not exist: 404) counts at once. Otherwise (source off or local, SGLang's {@code /tokenize}, which takes no
 * {@code messages}, a failed probe) chat requests of the model will not match KV blocks: one WARN per model says so and
 * why, and {@link #unmatched()} lists it (the readiness check {@code caravan-chat-tokens} shows it).
 *
 * <p>Thread-safe: the registry's thread only schedules; probes complete on the Vert.x context.
 */
public final class ChatTokensCheck implements WorkerListener {

    private static final Logger LOG = LoggerFactory.getLogger(ChatTokensCheck.class);

    private final LocalPrompts local;
    private final EngineTokenizer engine;
    private final String noEngine;
    private final Vertx vertx;
    private final Duration firstRetry;
    private final int attempts;
    /** Model → why its chat requests do not match; sorted for a stable detail. */
    private final Map<String, String> unmatched = new ConcurrentSkipListMap<>();
    /** Models whose chat requests a worker's {@code /tokenize} answered. */
    private final Set<String> engineTokenized = ConcurrentHashMap.newKeySet();
    /** Model → the worker whose {@code /tokenize} is (being) asked. */
    private final Map<String, String> asked = new ConcurrentSkipListMap<>();

    /**
     * @param engine   the {@code /tokenize} client, or null when the engine source is off
     * @param noEngine why a model without local files gets no engine tokens (names the setting), or null when it does
     */
    public ChatTokensCheck(LocalPrompts local, EngineTokenizer engine, String noEngine, Vertx vertx,
                           Duration firstRetry, int attempts) {
        if (engine == null && noEngine == null) {
            throw new IllegalArgumentException("without an engine tokenizer, say why (noEngine)");
        }
        this.local = local;
        this.engine = engine;
        this.noEngine = noEngine;
        this.vertx = vertx;
        this.firstRetry = firstRetry;
        this.attempts = attempts;
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        String model = worker.modelId();
        if (local.model(Worker.UNKNOWN_MODEL_ID.equals(model) ? null : model) != null) {
            return;
        }
        if (noEngine != null) {
            unmatched(model, noEngine);
            return;
        }
        if (asked.putIfAbsent(model, worker.url()) == null) {
            vertx.runOnContext(v -> probe(worker, model, 1, firstRetry));
        }
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        asked.remove(worker.modelId(), worker.url()); // the next worker of the model is asked when it joins
    }

    /** The models without local files whose chat requests a worker's {@code /tokenize} answered. */
    public Set<String> engineTokenized() {
        return Set.copyOf(engineTokenized);
    }

    /** Model → why its chat requests will not match KV blocks; models not (yet) known to fail are absent. */
    public Map<String, String> unmatched() {
        return Map.copyOf(unmatched);
    }

    private void probe(Worker worker, String model, int attempt, Duration delay) {
        String sent = Worker.UNKNOWN_MODEL_ID.equals(model) ? null : model;
        engine.tokenizeOn(worker, engine.request(sent, TokenizerCheck.PROBE, true, null)).whenComplete((ids, e) -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (ids != null) {
                unmatched.remove(model);
                engineTokenized.add(model);
                LOG.info("Model {}: kv_aware routes chat requests on the engine's tokens from {}/tokenize (no local "
                        + "model files)", model, worker.url());
            } else if (attempt < attempts && !(cause instanceof IllegalStateException)) {
                vertx.setTimer(delay.toMillis(), t -> probe(worker, model, attempt + 1, delay.multipliedBy(2)));
            } else {
                unmatched(model, "no local model files (--model-path) and " + worker.url() + "/tokenize gave no "
                        + "tokens: " + (cause == null ? "no answer" : cause.getMessage()));
            }
        });
    }

    private void unmatched(String model, String why) {
        if (unmatched.put(model, why) == null) {
            LOG.warn("Model {}: {}. Chat requests will not match KV blocks: kv_aware routes them by load alone. Give "
                    + "the gateway the engine's model files with --model-path (docs/tokens.md)", model, why);
        }
    }
}
