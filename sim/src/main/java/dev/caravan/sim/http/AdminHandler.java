package dev.caravan.sim.http;

import java.util.List;
import java.util.Map;

import dev.caravan.sim.Faults;
import dev.caravan.sim.engine.EngineCore;
import dev.caravan.sim.engine.SimRequest;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;

/**
 * The non-generating endpoints: health, load, server info, cache flush, metrics, model list, and the simulator's own
 * {@code /sim/faults} and {@code /sim/stats}.
 */
final class AdminHandler {

    private final EngineContext ctx;

    AdminHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void health(HttpServerRequest req) {
        req.response().setStatusCode(ctx.faults().healthFailing() ? 503 : 200).end();
    }

    /** Runs a real one-token generation through the engine, as SGLang's /health_generate does. */
    void healthGenerate(HttpServerRequest req) {
        if (ctx.faults().healthFailing()) {
            req.response().setStatusCode(503).end();
            return;
        }
        Job job = new Job(0, ctx.tokenizer.encode("health check"), 1, null, null);
        new GenerationCall(ctx, req, List.of(job), new GenerationCall.Sink() {
            @Override
            public void onToken(Job j, SimRequest r, int index, int tokenId) {
            }

            @Override
            public void onAllDone(List<SimRequest> results) {
                req.response().setStatusCode(200).end();
            }

            @Override
            public void onError(int status, String message) {
                Json.sendError(req.response(), status, message);
            }
        }).start();
    }

    void models(HttpServerRequest req) {
        String m = ctx.config.model();
        Json.send(req.response(), 200, Json.obj("object", "list", "data", List.of(Json.obj("id", m, "object", "model",
                "created", ctx.createdSeconds(), "owned_by", "caravan-sim", "root", m, "parent", null,
                "max_model_len", ctx.config.maxModelLen()))));
    }

    /** SGLang's shape: one entry per data-parallel rank (the simulator has one). */
    void load(HttpServerRequest req) {
        EngineCore core = ctx.driver.core();
        Json.send(req.response(), 200, List.of(Json.obj("dp_rank", 0, "num_reqs", core.running() + core.waiting(),
                "num_running_reqs", core.running(), "num_waiting_reqs", core.waiting(), "num_tokens",
                core.liveTokens(), "kv_usage", core.cache().usage())));
    }

    void serverInfo(HttpServerRequest req) {
        var c = ctx.config;
        Map<String, Object> info = Json.obj("model_path", c.model(), "served_model_name", c.model(),
                "tokenizer_path", ctx.tokenizer.name(), "engine", "caravan-sim", "version", "caravan-sim-0.1",
                "host", c.host(), "port", ctx.httpPort(), "disaggregation_mode", c.role().disaggregationMode(),
                "disaggregation_bootstrap_port", ctx.bootstrapPort() > 0 ? ctx.bootstrapPort() : null,
                "page_size", c.blockSize(), "max_total_num_tokens", c.kvCapacityTokens(),
                "kv_capacity_tokens", c.kvCapacityTokens(), "kv_capacity_blocks", c.kvCapacityBlocks(),
                "max_running_requests", c.maxRunning(), "context_length", c.maxModelLen(),
                "chars_per_token", c.charsPerToken(), "hash_seed", c.hashSeed(),
                "prefix_caching_hash_algo", "sha256_cbor", "prefill_tokens_per_sec", c.prefillTokensPerSec(),
                "prefill_overhead_ms", c.prefillOverheadMs(), "decode_ms_per_token", c.decodeMsPerToken(),
                "time_scale", c.timeScale(),
                "kv_events_endpoint", ctx.publisher == null ? null : ctx.publisher.endpoint(),
                "kv_replay_endpoint", ctx.publisher == null ? null : ctx.publisher.replayEndpoint(),
                "kv_events_layout", c.kvEventsLayout().name().toLowerCase(java.util.Locale.ROOT),
                "internal_states", List.of(Json.obj("max_total_num_tokens", c.kvCapacityTokens(),
                        "kv_usage", ctx.driver.core().cache().usage())));
        Json.send(req.response(), 200, info);
    }

    void modelInfo(HttpServerRequest req) {
        Json.send(req.response(), 200, Json.obj("model_path", ctx.config.model(), "tokenizer_path",
                ctx.tokenizer.name(), "is_generation", true));
    }

    /** SGLang semantics: refused (400) while requests are in the engine. */
    void flushCache(HttpServerRequest req) {
        boolean ok = ctx.driver.flushCache();
        req.response().setStatusCode(ok ? 200 : 400).putHeader("content-type", "text/plain")
                .end(ok ? "Cache flushed.\n" : "Cache not flushed because there are pending requests.\n");
    }

    void metrics(HttpServerRequest req) {
        req.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
                .end(MetricsText.render(ctx));
    }

    void getFaults(HttpServerRequest req) {
        Json.send(req.response(), 200, ctx.faults().toJson());
    }

    void setFaults(HttpServerRequest req, Buffer body) {
        Map<String, Object> json = Json.parseObject(body);
        try {
            ctx.setFaults(ctx.faults().merge(json));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        Json.send(req.response(), 200, ctx.faults().toJson());
    }

    void resetFaults(HttpServerRequest req) {
        ctx.setFaults(Faults.NONE);
        Json.send(req.response(), 200, ctx.faults().toJson());
    }

    void stats(HttpServerRequest req) {
        Map<String, Object> m = ctx.stats.toJson();
        EngineCore core = ctx.driver.core();
        m.put("running", core.running());
        m.put("waiting", core.waiting());
        m.put("kv_usage", core.cache().usage());
        m.put("kv_resident_blocks", core.cache().residentBlocks());
        m.put("prefix_cache_queries", core.cache().queriedTokens());
        m.put("prefix_cache_hits", core.cache().hitTokens());
        m.put("bootstrap_waiters", ctx.rooms.parkedWaiters());
        if (ctx.publisher != null) {
            m.put("kv_event_batches", ctx.publisher.sequenced());
            m.put("kv_event_batches_sent", ctx.publisher.published());
        }
        Json.send(req.response(), 200, m);
    }

    void resetStats(HttpServerRequest req) {
        ctx.stats.reset();
        stats(req);
    }
}
