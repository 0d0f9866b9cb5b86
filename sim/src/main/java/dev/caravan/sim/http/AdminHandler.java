package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
        Job job = new Job(0, ctx.text.tokenizer().encode("health check", true), 1, null, null);
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

    /** SGLang's shape: one entry per data-parallel rank. */
    void load(HttpServerRequest req) {
        List<Object> out = new ArrayList<>();
        for (EngineRank r : ctx.ranks) {
            EngineCore core = r.driver().core();
            out.add(Json.obj("dp_rank", r.index(), "num_reqs", core.running() + core.waiting(),
                    "num_running_reqs", core.running(), "num_waiting_reqs", core.waiting(), "num_tokens",
                    core.liveTokens(), "kv_usage", core.cache().usage()));
        }
        Json.send(req.response(), 200, out);
    }

    void serverInfo(HttpServerRequest req) {
        var c = ctx.config;
        List<Object> events = new ArrayList<>();
        List<Object> replays = new ArrayList<>();
        List<Object> states = new ArrayList<>();
        for (EngineRank r : ctx.ranks) {
            events.add(r.publisher() == null ? null : r.publisher().endpoint());
            replays.add(r.publisher() == null ? null : r.publisher().replayEndpoint());
            states.add(Json.obj("dp_rank", r.index(), "max_total_num_tokens", c.kvCapacityTokens(),
                    "kv_usage", r.driver().core().cache().usage()));
        }
        Map<String, Object> info = Json.obj("model_path", c.model(), "served_model_name", c.model(),
                "tokenizer_path", ctx.text.tokenizer().name(),
                "chat_template", ctx.text.chatTemplate() == null ? null : ctx.text.chatTemplate().name(),
                "engine", "caravan-sim", "version", "caravan-sim-0.1",
                "host", c.host(), "port", ctx.httpPort(), "disaggregation_mode", c.role().disaggregationMode(),
                "disaggregation_bootstrap_port", ctx.bootstrapPort() > 0 ? ctx.bootstrapPort() : null,
                "page_size", c.blockSize(), "max_total_num_tokens", c.kvCapacityTokens(),
                "kv_capacity_tokens", c.kvCapacityTokens(), "kv_capacity_blocks", c.kvCapacityBlocks(),
                "kv_offload_capacity_tokens", c.kvOffloadCapacityTokens(),
                "max_running_requests", c.maxRunning(), "context_length", c.maxModelLen(),
                "dp_size", c.dataParallelSize(), "data_parallel_size", c.dataParallelSize(),
                "chars_per_token", c.charsPerToken(), "hash_seed", c.hashSeed(),
                "prefix_caching_hash_algo", hashAlgo(), "kv_publisher", c.kvPublisher().wireName(),
                "prefill_tokens_per_sec", c.prefillTokensPerSec(),
                "prefill_overhead_ms", c.prefillOverheadMs(), "decode_ms_per_token", c.decodeMsPerToken(),
                "time_scale", c.timeScale(),
                "kv_events_endpoint", events.get(0), "kv_replay_endpoint", replays.get(0),
                "kv_events_endpoints", events, "kv_replay_endpoints", replays,
                "kv_events_layout", c.kvEventsLayout().name().toLowerCase(Locale.ROOT),
                "internal_states", states);
        Json.send(req.response(), 200, info);
    }

    /** The block-hash scheme in force: vLLM's algorithm name, or SGLang's page hash. */
    private String hashAlgo() {
        return ctx.config.kvPublisher() == dev.caravan.sim.kv.KvPublisherKind.SGLANG ? "sglang_page_sha256"
                : ctx.config.hashAlgo().wireName();
    }

    void modelInfo(HttpServerRequest req) {
        Json.send(req.response(), 200, Json.obj("model_path", ctx.config.model(), "tokenizer_path",
                ctx.text.tokenizer().name(), "is_generation", true));
    }

    /** SGLang semantics: refused (400) while requests are in the engine. */
    void flushCache(HttpServerRequest req) {
        boolean ok = true;
        for (EngineRank r : ctx.ranks) {
            ok &= r.driver().flushCache();
        }
        req.response().setStatusCode(ok ? 200 : 400).putHeader("content-type", "text/plain")
                .end(ok ? "Cache flushed.\n" : "Cache not flushed because there are pending requests.\n");
    }

    /** vLLM's {@code POST /reset_prefix_cache} (a dev-mode endpoint there): 200 when reset, 500 while requests run. */
    void resetPrefixCache(HttpServerRequest req) {
        boolean ok = true;
        for (EngineRank r : ctx.ranks) {
            ok &= r.driver().flushCache();
        }
        if (ok) {
            req.response().setStatusCode(200).end();
        } else {
            Json.sendError(req.response(), 500, "Failed to reset prefix cache: requests are running");
        }
    }

    /** vLLM's {@code GET /version}. */
    void version(HttpServerRequest req) {
        Json.send(req.response(), 200, Json.obj("version", "caravan-sim-0.1"));
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
        int running = 0;
        int waiting = 0;
        double usage = 0;
        long resident = 0;
        long offloaded = 0;
        long queries = 0;
        long hits = 0;
        long offloadHits = 0;
        long batches = 0;
        long sent = 0;
        boolean publishing = false;
        List<Object> ranks = new ArrayList<>();
        for (EngineRank r : ctx.ranks) {
            EngineCore core = r.driver().core();
            ranks.add(Json.obj("dp_rank", r.index(), "prefix_cache_queries", core.cache().queriedTokens(),
                    "kv_resident_blocks", core.cache().residentBlocks()));
            running += core.running();
            waiting += core.waiting();
            usage += core.cache().usage() / ctx.ranks.size();
            resident += core.cache().residentBlocks();
            offloaded += core.cache().offloadedBlocks();
            queries += core.cache().queriedTokens();
            hits += core.cache().hitTokens();
            offloadHits += core.cache().offloadHitTokens();
            if (r.publisher() != null) {
                publishing = true;
                batches += r.publisher().sequenced();
                sent += r.publisher().published();
            }
        }
        m.put("running", running);
        m.put("waiting", waiting);
        m.put("kv_usage", usage);
        m.put("kv_resident_blocks", resident);
        m.put("kv_offloaded_blocks", offloaded);
        m.put("prefix_cache_queries", queries);
        m.put("prefix_cache_hits", hits);
        m.put("offload_hit_tokens", offloadHits);
        m.put("bootstrap_waiters", ctx.rooms.parkedWaiters());
        m.put("ranks", ranks);
        if (publishing) {
            m.put("kv_event_batches", batches);
            m.put("kv_event_batches_sent", sent);
        }
        Json.send(req.response(), 200, m);
    }

    void resetStats(HttpServerRequest req) {
        ctx.stats.reset();
        stats(req);
    }
}
