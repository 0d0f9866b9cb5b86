package dev.caravan.processors.tokens;

import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.PROMPT_TOKENS;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.text.PromptTokens;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.request.RequestKind;
import dev.caravan.processors.tokens.TokensMetrics.Outcome;
import dev.caravan.tokens.ChatTemplateException;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.LocalModel;
import dev.caravan.tokens.PromptKeys;

/**
 * Route step {@code tokenizePrompt} (after {@code admitRequest}): the engine's own prompt tokens for the request, with
 * its LoRA adapter and {@code cache_salt} ({@link PromptKeys}), as {@code PROMPT_TOKENS} for the selection steps
 * (docs/tokens.md). Reads {@code REQUEST_KIND}, {@code REQUEST_JSON}, {@code MODEL}.
 *
 * <p>Where the ids come from, by {@code --tokens-source}:
 * <ul>
 *   <li>token ids in the request ({@code prompt} as ids, {@code input_ids}): those, whatever the source
 *       (except {@code off});</li>
 *   <li>{@code local} / {@code auto}: the model's {@link LocalModel} — chat rendered with its template and encoded
 *       without special tokens, a text prompt encoded with them; for a model without local files nothing, or with
 *       {@code auto} under kv_aware ({@code engineWithoutFiles}) the engine's as below (not for chat against SGLang,
 *       whose {@code /tokenize} takes no messages);</li>
 *   <li>{@code engine}: a worker's {@code /tokenize} ({@link EngineTokenizer}), asynchronously, bounded by
 *       {@code --tokens-engine-timeout-ms}; on failure the local tokens when the model has them, else none;</li>
 *   <li>{@code off}: nothing.</li>
 * </ul>
 * Local rendering and encoding, and the rendering SGLang's {@code /tokenize} is sent, are CPU work (milliseconds for
 * long prompts, docs/performance.md): with an executor they run there and the exchange continues from it, so the
 * event loops never carry them. No tokens is not an error: the policy then tokenizes the routing text as before. A
 * batch of prompts gets none.
 * A chat the engine would refuse — its template raised ({@code raise_exception}), or the model has no chat template
 * — ends with 400 {@code invalid_request} carrying the template's message, as the engine would answer; a template that
 * fails to render here for another reason (a Jinja construct Jinjava lacks) is logged once per template, counted, and
 * routed without tokens.
 */
public final class TokenizePromptProcessor extends AsyncProcessorSupport {

    private static final Logger LOG = LoggerFactory.getLogger(TokenizePromptProcessor.class);

    private final TokensConfig config;
    private final LocalPrompts local;
    private final EngineTokenizer engine;
    private final TokensMetrics metrics;
    private final LongSupplier nanoTime;
    private final Executor cpu;
    private final boolean engineWithoutFiles;
    private final java.util.Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Local tokens computed on the calling thread (tests). */
    public TokenizePromptProcessor(TokensConfig config, LocalPrompts local, EngineTokenizer engine,
                                   TokensMetrics metrics, LongSupplier nanoTime) {
        this(config, local, engine, metrics, nanoTime, null);
    }

    /**
     * @param engine the engine source, or null unless {@code --tokens-source engine}
     * @param cpu    where local rendering and encoding run (CPU work kept off the event loops), or null for the
     *               calling thread
     */
    public TokenizePromptProcessor(TokensConfig config, LocalPrompts local, EngineTokenizer engine,
                                   TokensMetrics metrics, LongSupplier nanoTime, Executor cpu) {
        this(config, local, engine, metrics, nanoTime, cpu, false);
    }

    /**
     * @param engineWithoutFiles with {@code --tokens-source auto}: ask the engine for models without local files
     *                           (kv_aware routes), instead of giving them no tokens
     */
    public TokenizePromptProcessor(TokensConfig config, LocalPrompts local, EngineTokenizer engine,
                                   TokensMetrics metrics, LongSupplier nanoTime, Executor cpu,
                                   boolean engineWithoutFiles) {
        this.cpu = cpu;
        this.engineWithoutFiles = engineWithoutFiles && config.source() == TokensConfig.Source.AUTO;
        this.config = config;
        this.local = local;
        this.engine = engine;
        this.metrics = metrics;
        this.nanoTime = nanoTime;
        if ((config.source() == TokensConfig.Source.ENGINE || this.engineWithoutFiles) && engine == null) {
            throw new IllegalArgumentException("--tokens-source " + config.source().wireName()
                    + " needs the engine tokenizer");
        }
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        if (config.source() == TokensConfig.Source.OFF) {
            callback.done(true);
            return true;
        }
        long start = nanoTime.getAsLong();
        try {
            return tokenize(exchange, callback, start);
        } catch (RuntimeException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
    }

    private boolean tokenize(Exchange exchange, AsyncCallback callback, long start) {
        RequestKind kind = RequestKind.parse(REQUEST_KIND.get(exchange));
        Map<String, Object> body = REQUEST_JSON.get(exchange);
        String model = MODEL.get(exchange);
        PromptKeys keys = PromptKeys.of(model, body, config.loraAdapters(), config.engine());
        int[] given = RequestIds.of(kind, body);
        boolean chat = kind == RequestKind.CHAT;
        String prompt = chat ? null : RequestIds.textPrompt(kind, body);
        LocalModel localModel = local.model(keys.baseModel());
        boolean useEngine = config.source() == TokensConfig.Source.ENGINE
                || engineWithoutFiles && localModel == null && !(chat && config.engine() == EngineDialect.SGLANG);
        if (given != null || (!chat && prompt == null) || localModel == null && !useEngine) {
            publish(exchange, keys, given, given != null ? Outcome.REQUEST : Outcome.NONE, start);
            callback.done(true);
            return true;
        }
        if (!useEngine) {
            if (cpu == null) {
                int[] ids = localIds(localModel, chat, body, prompt);
                publish(exchange, keys, ids, ids != null ? Outcome.LOCAL : Outcome.NONE, start);
                callback.done(true);
                return true;
            }
            cpu.execute(() -> {
                try {
                    int[] ids = localIds(localModel, chat, body, prompt);
                    publish(exchange, keys, ids, ids != null ? Outcome.LOCAL : Outcome.NONE, start);
                } catch (RuntimeException e) {
                    exchange.setException(e);
                }
                callback.done(false);
            });
            return false;
        }
        boolean renderHere = chat && config.engine() == EngineDialect.SGLANG && localModel != null;
        if (renderHere && cpu != null) {
            cpu.execute(() -> { // SGLang's /tokenize takes the rendered chat: render off the event loop
                String rendered;
                try {
                    rendered = render(localModel, body);
                } catch (RuntimeException e) {
                    exchange.setException(e);
                    callback.done(false);
                    return;
                }
                askEngine(exchange, callback, keys, new LocalRequest(localModel, chat, body, prompt), rendered, start);
            });
            return false;
        }
        String rendered = renderHere ? render(localModel, body) : null;
        askEngine(exchange, callback, keys, new LocalRequest(localModel, chat, body, prompt), rendered, start);
        return false;
    }

    /** What the local fallback needs of a request. */
    private record LocalRequest(LocalModel model, boolean chat, Map<String, Object> body, String prompt) {
    }

    /** The engine's {@code /tokenize}; on failure the local tokens when the model has files, else none. */
    private void askEngine(Exchange exchange, AsyncCallback callback, PromptKeys keys, LocalRequest request,
                           String rendered, long start) {
        engine.tokenize(keys.baseModel(), MODEL.get(exchange), request.body(), request.chat(), rendered)
                .whenComplete((ids, error) -> {
                    if (ids != null) {
                        publish(exchange, keys, ids, Outcome.ENGINE, start);
                        callback.done(false);
                        return;
                    }
                    countFailure(error);
                    Runnable fallback = () -> {
                        try {
                            int[] local = request.model() == null ? null
                                    : localIds(request.model(), request.chat(), request.body(), request.prompt());
                            publish(exchange, keys, local, local == null ? Outcome.NONE : Outcome.LOCAL, start);
                        } catch (RuntimeException e) {
                            exchange.setException(e);
                        }
                        callback.done(false);
                    };
                    if (cpu != null && request.model() != null) {
                        cpu.execute(fallback);
                    } else {
                        fallback.run();
                    }
                });
    }

    private void publish(Exchange exchange, PromptKeys keys, int[] ids, Outcome outcome, long start) {
        if (ids != null) {
            PromptTokens.Source source = switch (outcome) {
                case ENGINE -> PromptTokens.Source.ENGINE;
                case REQUEST -> PromptTokens.Source.REQUEST;
                default -> PromptTokens.Source.LOCAL;
            };
            PROMPT_TOKENS.set(exchange, new PromptTokens(ids, keys.loraName(), keys.cacheSalt(), source));
        }
        metrics.record(outcome, nanoTime.getAsLong() - start);
    }

    private int[] localIds(LocalModel model, boolean chat, Map<String, Object> body, String prompt) {
        if (!chat) {
            return model.completion(prompt);
        }
        String rendered = render(model, body);
        return rendered == null ? null : model.encodeChat(rendered);
    }

    /** The chat rendering; a refusal ends the request with 400, any other failure gives null (no tokens). */
    private String render(LocalModel model, Map<String, Object> body) {
        try {
            return model.render(body);
        } catch (ChatTemplateException e) {
            if (e.refused()) {
                throw GatewayError.INVALID_REQUEST.exception(e.getMessage());
            }
            metrics.renderError();
            if (warned.add(model.model() + e.getMessage())) {
                LOG.warn("Model {}: the chat template failed to render in the gateway, requests are routed without "
                        + "the engine's tokens: {}", model.model(), e.getMessage());
            }
            return null;
        } catch (IllegalArgumentException e) {
            throw GatewayError.INVALID_REQUEST.exception(e.getMessage());
        }
    }

    private void countFailure(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TimeoutException) {
            metrics.engineTimeout();
        } else if (cause != null && cause.getMessage() != null && cause.getMessage().startsWith("no available worker")) {
            metrics.noWorker();
        } else {
            metrics.engineError();
        }
        LOG.debug("Engine /tokenize gave no tokens: {}", cause == null ? "unknown" : cause.toString());
    }

    /** The ids of a request that carries them, and the text prompt of one that has a single one. */
    static final class RequestIds {
        private RequestIds() {
        }

        static int[] of(RequestKind kind, Map<String, Object> body) {
            Object v = switch (kind) {
                case COMPLETIONS -> body.get("prompt");
                case EMBEDDINGS -> body.get("input");
                case GENERATE -> body.get("text") == null ? body.get("input_ids") : null;
                default -> null; // chat is rendered; the other kinds carry no prompt of their own to cache
            };
            if (!(v instanceof List<?> list) || list.isEmpty() || !(list.get(0) instanceof Number)) {
                return null;
            }
            int[] ids = new int[list.size()];
            for (int i = 0; i < ids.length; i++) {
                if (!(list.get(i) instanceof Number n)) {
                    return null;
                }
                ids[i] = n.intValue();
            }
            return ids;
        }

        static String textPrompt(RequestKind kind, Map<String, Object> body) {
            Object v = switch (kind) {
                case COMPLETIONS -> body.get("prompt");
                case EMBEDDINGS -> body.get("input");
                case GENERATE -> body.get("text");
                default -> null; // chat is rendered; the other kinds carry no prompt of their own to cache
            };
            if (v instanceof List<?> list && list.size() == 1 && list.get(0) instanceof String s) {
                return s;
            }
            return v instanceof String s ? s : null;
        }
    }
}
