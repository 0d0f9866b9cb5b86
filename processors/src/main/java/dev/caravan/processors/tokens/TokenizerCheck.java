package dev.caravan.processors.tokens;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;
import dev.caravan.tokens.LocalModel;

/**
 * Checks that each new worker's engine tokenizes as the gateway does — the same {@code tokenizer.json} revision and
 * chat template — by asking its {@code /tokenize} for a fixed probe conversation and comparing with the local tokens
 * (neither vLLM nor SGLang reports a tokenizer hash, so the tokens themselves are compared). Agreement is logged at
 * INFO; a difference at WARN with the first differing position and the local files' SHA-256, since kv_aware's chat
 * blocks would then never match. Gauge {@code caravan_prompt_tokens_engine_agreement{worker}}: 1 agrees, 0 differs,
 * absent until checked. An engine that does not answer yet (starting) is asked again with growing delays, up to
 * {@code attempts} times; one that never answers is only logged. Asynchronous: the registry's thread only schedules.
 */
public final class TokenizerCheck implements WorkerListener {

    /** The probe: a short multi-turn chat with a system prompt, punctuation, digits and non-ASCII text. */
    static final Map<String, Object> PROBE = Map.of("messages", List.of(
            Map.of("role", "system", "content", "You are Caravan's tokenizer probe."),
            Map.of("role", "user", "content", "Route 66: 3 caravans, 12 camels — naïve café? 東京 🐪"),
            Map.of("role", "assistant", "content", "Noted."),
            Map.of("role", "user", "content", "Again, with feeling!")));

    private static final Logger LOG = LoggerFactory.getLogger(TokenizerCheck.class);

    private final LocalPrompts local;
    private final EngineTokenizer engine;
    private final Vertx vertx;
    private final MeterRegistry meters;
    private final Duration firstRetry;
    private final int attempts;
    private final Map<String, Double> agreement = new ConcurrentHashMap<>();
    private final Map<String, Gauge> gauges = new ConcurrentHashMap<>();

    /**
     * @param firstRetry delay before the second attempt; each later one waits twice as long
     * @param attempts   how many times a silent engine is asked
     */
    public TokenizerCheck(LocalPrompts local, EngineTokenizer engine, Vertx vertx, MeterRegistry meters,
                          Duration firstRetry, int attempts) {
        this.local = local;
        this.engine = engine;
        this.vertx = vertx;
        this.meters = meters;
        this.firstRetry = firstRetry;
        this.attempts = attempts;
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        String model = Worker.UNKNOWN_MODEL_ID.equals(worker.modelId()) ? null : worker.modelId();
        LocalModel m = local.model(model);
        if (m == null || !m.hasChatTemplate()) {
            return;
        }
        vertx.runOnContext(v -> probe(worker, model, m, 1, firstRetry));
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        agreement.remove(worker.url());
        Gauge g = gauges.remove(worker.url());
        if (g != null) {
            meters.remove(g);
        }
    }

    /** 1 when the worker agreed, 0 when it differed, null when not (yet) checked. */
    public Double agreement(String workerUrl) {
        return agreement.get(workerUrl);
    }

    private void probe(Worker worker, String model, LocalModel m, int attempt, Duration delay) {
        int[] expected;
        Map<String, Object> request;
        try {
            String rendered = m.render(PROBE);
            expected = m.encode(rendered, false);
            request = engine.request(model, PROBE, true, rendered);
        } catch (RuntimeException e) {
            LOG.warn("Cannot check worker {}'s tokenizer: the probe does not render here: {}", worker.url(),
                    e.getMessage());
            return;
        }
        engine.tokenizeOn(worker, request).whenComplete((ids, error) -> {
            if (ids != null) {
                compare(worker, model, m, expected, ids);
            } else if (attempt < attempts) {
                vertx.setTimer(delay.toMillis(), t -> probe(worker, model, m, attempt + 1, delay.multipliedBy(2)));
            } else {
                LOG.info("Could not check worker {}'s tokenizer ({} attempts): {}", worker.url(), attempts,
                        error == null ? "no answer" : error.getMessage());
            }
        });
    }

    private void compare(Worker worker, String model, LocalModel m, int[] expected, int[] actual) {
        int first = 0;
        while (first < expected.length && first < actual.length && expected[first] == actual[first]) {
            first++;
        }
        boolean same = first == expected.length && first == actual.length;
        agreement.put(worker.url(), same ? 1.0 : 0.0);
        gauges.computeIfAbsent(worker.url(), url -> Gauge.builder("caravan_prompt_tokens_engine_agreement",
                agreement, a -> a.getOrDefault(url, Double.NaN)).tag("worker", url)
                .description("1 when the worker's /tokenize agrees with the gateway's tokenizer and chat template")
                .register(meters));
        if (same) {
            LOG.info("Worker {} tokenizes model {} as the gateway does (tokenizer.json sha256 {})", worker.url(),
                    model == null ? m.model() : model, m.tokenizerSha256().substring(0, 12));
        } else {
            LOG.warn("Worker {} tokenizes model {} differently from the gateway's tokenizer.json (sha256 {}) and chat "
                            + "template: {} tokens there, {} here, first difference at token {}. kv_aware's chat blocks "
                            + "will not match: point --model-path at the engine's model files, or use --tokens-source "
                            + "engine (docs/tokens.md)", worker.url(), model == null ? m.model() : model,
                    m.tokenizerSha256().substring(0, 12), actual.length, expected.length, first);
        }
    }
}
