package dev.caravan.sim.http;

import java.util.Map;
import java.util.function.BiConsumer;

import dev.caravan.sim.EngineApi;
import dev.caravan.sim.Faults;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Request dispatch of one simulated engine. Inference endpoints pass through the fault gate (drop, injected error,
 * hang, added latency, in that order) and are counted in {@code /sim/stats}; bad bodies get a 400 OpenAI-style error
 * that names the problem; unknown paths a 404. The engines' own endpoints are served per {@link EngineApi} (SGLang's,
 * vLLM's, or both). A {@code data_parallel_rank} in a body pins the request to that rank, as SGLang does. Runs on the
 * engine's context (never blocks).
 */
public final class SimHttpServer implements Handler<HttpServerRequest> {

    /** Largest request body accepted (SGLang's gateway default is far larger; prompts here fit easily). */
    public static final long MAX_BODY_BYTES = 64L << 20;
    private static final Logger LOG = LoggerFactory.getLogger(SimHttpServer.class);

    private final EngineContext ctx;
    private final OpenAiHandler completions;
    private final OpenAiHandler chat;
    private final GenerateHandler generate;
    private final EmbeddingsHandler embeddings;
    private final AdminHandler admin;
    private final TokenizeHandler tokenize;
    private final RerankHandler rerank;
    private final ClassifyHandler classify;
    private final ResponsesHandler responses;
    private final EngineApi api;

    public SimHttpServer(EngineContext ctx) {
        this.ctx = ctx;
        this.completions = new OpenAiHandler(ctx, false);
        this.chat = new OpenAiHandler(ctx, true);
        this.generate = new GenerateHandler(ctx);
        this.embeddings = new EmbeddingsHandler(ctx);
        this.admin = new AdminHandler(ctx);
        this.tokenize = new TokenizeHandler(ctx);
        this.api = ctx.config.engineApi();
        this.rerank = new RerankHandler(ctx, api == EngineApi.VLLM);
        this.classify = new ClassifyHandler(ctx);
        this.responses = new ResponsesHandler(ctx);
    }

    @Override
    public void handle(HttpServerRequest req) {
        if (ctx.bootstrap.handle(req)) {
            return;
        }
        String path = req.path();
        HttpMethod m = req.method();
        if (m == HttpMethod.POST) {
            switch (path) {
                case "/v1/completions" -> inference(req, completions::handle);
                case "/v1/chat/completions" -> inference(req, chat::handle);
                case "/v1/embeddings" -> inference(req, embeddings::handle);
                case "/v1/rerank", "/rerank" -> inference(req, rerank::handle);
                case "/v1/responses" -> inference(req, responses::create);
                case "/tokenize" -> withJson(req, tokenize::tokenize);
                case "/detokenize" -> withJson(req, tokenize::detokenize);
                case "/sim/faults" -> withBody(req, body -> admin.setFaults(req, body));
                case "/sim/stats/reset" -> admin.resetStats(req);
                default -> {
                    String cancel = responseId(path, CANCEL_SUFFIX);
                    if (cancel != null) {
                        responses.cancel(req, cancel);
                    } else if (!(api.servesSglang() && postSglang(req, path))
                            && !(api.servesVllm() && postVllm(req, path))) {
                        notFound(req);
                    }
                }
            }
            return;
        }
        if (m == HttpMethod.GET) {
            switch (path) {
                case "/health" -> admin.health(req);
                case "/health_generate" -> admin.healthGenerate(req);
                case "/v1/models" -> admin.models(req);
                case "/metrics" -> admin.metrics(req);
                case "/sim/faults" -> admin.getFaults(req);
                case "/sim/stats" -> admin.stats(req);
                default -> {
                    String id = responseId(path, "");
                    if (id != null) {
                        responses.retrieve(req, id);
                    } else if (!(api.servesSglang() && getSglang(req, path))
                            && !(api.servesVllm() && getVllm(req, path))) {
                        notFound(req);
                    }
                }
            }
            return;
        }
        if (m == HttpMethod.DELETE && path.equals("/sim/faults")) {
            admin.resetFaults(req);
            return;
        }
        String id = m == HttpMethod.DELETE ? responseId(path, "") : null;
        if (id != null) {
            responses.delete(req, id);
            return;
        }
        notFound(req);
    }

    private static final String RESPONSES_PREFIX = "/v1/responses/";
    private static final String CANCEL_SUFFIX = "/cancel";

    /** The id in {@code /v1/responses/{id}<suffix>}, or null when {@code path} is not that. */
    private static String responseId(String path, String suffix) {
        if (!path.startsWith(RESPONSES_PREFIX) || !path.endsWith(suffix)) {
            return null;
        }
        String id = path.substring(RESPONSES_PREFIX.length(), path.length() - suffix.length());
        return id.isEmpty() || id.indexOf('/') >= 0 ? null : id;
    }

    /** SGLang's own POST endpoints; false when {@code path} is not one. */
    private boolean postSglang(HttpServerRequest req, String path) {
        switch (path) {
            case "/generate" -> inference(req, generate::handle);
            case "/v1/classify" -> inference(req, classify::handle);
            case "/v1/tokenize" -> withJson(req, tokenize::tokenize);
            case "/v1/detokenize" -> withJson(req, tokenize::detokenize);
            case "/flush_cache" -> admin.flushCache(req);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** vLLM's own POST endpoints; false when {@code path} is not one. */
    private boolean postVllm(HttpServerRequest req, String path) {
        switch (path) {
            case "/classify" -> inference(req, classify::handle);
            case "/reset_prefix_cache" -> admin.resetPrefixCache(req);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** SGLang's own GET endpoints (old and new spellings); false when {@code path} is not one. */
    private boolean getSglang(HttpServerRequest req, String path) {
        switch (path) {
            case "/get_load" -> admin.load(req);
            case "/get_server_info", "/server_info" -> admin.serverInfo(req);
            case "/get_model_info", "/model_info" -> admin.modelInfo(req);
            default -> {
                return false;
            }
        }
        return true;
    }

    /** vLLM's own GET endpoints; false when {@code path} is not one. */
    private boolean getVllm(HttpServerRequest req, String path) {
        if (path.equals("/version")) {
            admin.version(req);
            return true;
        }
        return false;
    }

    private void inference(HttpServerRequest req, BiConsumer<HttpServerRequest, Map<String, Object>> handler) {
        ctx.stats.recordRequest();
        req.response().endHandler(v -> {
            if (req.response().ended()) {
                ctx.stats.recordStatus(req.response().getStatusCode());
            }
        });
        withBody(req, body -> {
            Map<String, Object> json = Json.parseObject(body);
            Object rank = json.get("data_parallel_rank");
            if (rank != null) {
                // SGLang reads the rank from the body (its router sets it there); the rank choice reads the header
                req.headers().set(EngineContext.DP_RANK_HEADER, String.valueOf(rank));
            }
            Faults f = ctx.faults();
            if (f.dropAfterChunks() == 0) {
                ctx.stats.recordDroppedConnection();
                req.connection().close();
                return;
            }
            if (f.errorRate() > 0 && ctx.random.nextDouble() < f.errorRate()) {
                ctx.stats.recordInjectedError();
                Json.sendError(req.response(), f.errorStatus(), "injected fault (error_rate " + f.errorRate() + ")");
                return;
            }
            if (f.hang()) {
                ctx.stats.recordHung();
                LOG.debug("hanging {} (fault)", req.path());
                return;
            }
            if (f.addedLatencyMs() > 0) {
                ctx.vertx.setTimer(f.addedLatencyMs(), id -> {
                    if (!req.response().closed()) {
                        guarded(req, () -> handler.accept(req, json));
                    }
                });
                return;
            }
            handler.accept(req, json);
        });
    }

    private void withJson(HttpServerRequest req, BiConsumer<HttpServerRequest, Map<String, Object>> handler) {
        withBody(req, body -> handler.accept(req, Json.parseObject(body)));
    }

    private void withBody(HttpServerRequest req, Handler<Buffer> then) {
        String len = req.getHeader("content-length");
        if (len != null) {
            try {
                if (Long.parseLong(len) > MAX_BODY_BYTES) {
                    Json.sendError(req.response(), 413, "request body exceeds " + MAX_BODY_BYTES + " bytes");
                    return;
                }
            } catch (NumberFormatException e) {
                Json.sendError(req.response(), 400, "bad content-length " + len);
                return;
            }
        }
        req.body().onSuccess(body -> guarded(req, () -> then.handle(body)))
                .onFailure(e -> LOG.debug("request body not received: {}", e.toString()));
    }

    private static void guarded(HttpServerRequest req, Runnable r) {
        try {
            r.run();
        } catch (BadRequest e) {
            Json.sendError(req.response(), e.status(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("internal error on {} {}", req.method(), req.path(), e);
            Json.sendError(req.response(), 500, "internal simulator error: " + e);
        }
    }

    private static void notFound(HttpServerRequest req) {
        Json.sendError(req.response(), 404, "no route for " + req.method() + " " + req.path());
    }
}
