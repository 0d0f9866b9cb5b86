package dev.caravan.sim.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.engine.SimRequest;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

import io.vertx.core.http.HttpServerRequest;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions} in OpenAI/vLLM shapes, non-streaming (one JSON
 * body) or {@code stream: true} (one SSE chunk per token at the decode pace, a final usage chunk, {@code [DONE]}).
 * The usage chunk is sent unless {@code stream_options.include_usage} is explicitly false (OpenAI sends it only when
 * true; the simulator defaults to sending it so every client sees {@code cached_tokens}).
 */
final class OpenAiHandler {

    private static final int MAX_N = 128;

    private final EngineContext ctx;
    private final boolean chat;

    OpenAiHandler(EngineContext ctx, boolean chat) {
        this.ctx = ctx;
        this.chat = chat;
    }

    void handle(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        List<int[]> prompts = chat ? List.of(Prompts.chat(body, ctx.text)) : Prompts.completion(body, ctx.text);
        String cacheSalt = cacheSalt(body);
        int maxLen = ctx.config.maxModelLen();
        int maxTokens = Fields.integer(body, "max_tokens", ctx.config.defaultMaxTokens(), 1, maxLen);
        if (chat) {
            maxTokens = Fields.integer(body, "max_completion_tokens", maxTokens, 1, maxLen);
        }
        int n = Fields.integer(body, "n", 1, 1, MAX_N);
        boolean stream = Fields.bool(body, "stream", false);
        Map<?, ?> streamOptions = Fields.object(body, "stream_options");
        boolean includeUsage = streamOptions == null || !Boolean.FALSE.equals(streamOptions.get("include_usage"));
        boolean logprobs = chat ? Fields.bool(body, "logprobs", false)
                : body.get("logprobs") != null && Fields.integer(body, "logprobs", 0, 0, 20) >= 0;
        JobPlanner.Plan plan = JobPlanner.plan(ctx, body, prompts, n, maxTokens);
        Limits.lengths(ctx, prompts, plan.jobs().get(0).maxTokens());
        Render render = new Render(ctx.nextId(chat ? "chatcmpl-" : "cmpl-"), ctx.createdSeconds(), n, logprobs,
                plan.kvTransferParams());
        GenerationCall.Sink sink = stream ? new StreamSink(req, render, includeUsage) : new BodySink(req, render,
                plan.jobs().size());
        new GenerationCall(ctx, req, plan.jobs(), cacheSalt, sink).start();
    }

    /** Shapes shared by both sinks. */
    private final class Render {
        final String id;
        final long created;
        final int n;
        final boolean logprobs;
        final Map<String, Object> kvTransfer;

        Render(String id, long created, int n, boolean logprobs, Map<String, Object> kvTransfer) {
            this.id = id;
            this.created = created;
            this.n = n;
            this.logprobs = logprobs;
            this.kvTransfer = kvTransfer;
        }

        private String chunkPrefix;

        /** The serialised envelope of every chunk up to the choice's index: built once per response. */
        String chunkPrefix() {
            if (chunkPrefix == null) {
                String env = Json.string(envelope(chat ? "chat.completion.chunk" : "text_completion"));
                chunkPrefix = env.substring(0, env.length() - 1) + ",\"choices\":[{\"index\":";
            }
            return chunkPrefix;
        }

        Map<String, Object> envelope(String object) {
            return Json.obj("id", id, "object", object, "created", created, "model", ctx.config.model());
        }

        Object logprobsOf(SimRequest r, int from, int to) {
            if (!logprobs) {
                return null;
            }
            int[] out = r.outputTokens();
            List<Object> content = new ArrayList<>();
            List<String> tokens = new ArrayList<>();
            List<Double> values = new ArrayList<>();
            List<Integer> offsets = new ArrayList<>();
            int offset = 0;
            for (int i = 0; i < to; i++) {
                String text = ctx.output.text(out[i]);
                if (i >= from) {
                    double lp = OutputGenerator.logprob(out[i], r.promptTokens() + i);
                    content.add(Json.obj("token", text, "logprob", lp, "bytes", bytes(text), "top_logprobs",
                            List.of()));
                    tokens.add(text);
                    values.add(lp);
                    offsets.add(offset);
                }
                offset += text.length();
            }
            return chat ? Json.obj("content", content)
                    : Json.obj("text_offset", offsets, "token_logprobs", values, "tokens", tokens, "top_logprobs",
                    null);
        }

        String text(SimRequest r) {
            StringBuilder sb = new StringBuilder();
            for (int t : r.outputTokens()) {
                sb.append(ctx.output.text(t));
            }
            return sb.toString();
        }
    }

    /**
     * One token's chunk without logprobs, written directly (the hot path of streaming): the same bytes Jackson writes
     * for the equivalent map (tested).
     */
    static String tokenChunk(String prefix, boolean chat, int index, String text, boolean last) {
        StringBuilder sb = new StringBuilder(prefix.length() + 96).append(prefix).append(index);
        sb.append(chat ? ",\"delta\":{\"content\":" : ",\"text\":");
        sb.append('"');
        JsonStringEncoder.getInstance().quoteAsString(text, sb);
        sb.append('"');
        sb.append(chat ? "},\"logprobs\":null,\"finish_reason\":" : ",\"logprobs\":null,\"finish_reason\":");
        sb.append(last ? "\"length\"" : "null");
        sb.append(chat ? "}]}" : ",\"stop_reason\":null}]}");
        return sb.toString();
    }

    /** vLLM's {@code cache_salt}: a non-empty string isolating the request's prefix-cache blocks, or absent. */
    private static String cacheSalt(Map<String, Object> body) {
        Object v = body.get("cache_salt");
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s) || s.isEmpty()) {
            throw new BadRequest("cache_salt must be a non-empty string, was " + Json.string(v));
        }
        return s;
    }

    private static List<Integer> bytes(String s) {
        List<Integer> out = new ArrayList<>();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            out.add(b & 0xff);
        }
        return out;
    }

    private final class BodySink implements GenerationCall.Sink {
        private final HttpServerRequest req;
        private final Render render;

        BodySink(HttpServerRequest req, Render render, int jobs) {
            this.req = req;
            this.render = render;
        }

        @Override
        public void onToken(Job job, SimRequest r, int index, int tokenId) {
        }

        @Override
        public void onAllDone(List<SimRequest> results) {
            Map<String, Object> body = render.envelope(chat ? "chat.completion" : "text_completion");
            List<Object> choices = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) {
                SimRequest r = results.get(i);
                Object lp = render.logprobsOf(r, 0, r.generated());
                if (chat) {
                    choices.add(Json.obj("index", i, "message", Json.obj("role", "assistant", "content",
                            render.text(r)), "logprobs", lp, "finish_reason", "length", "stop_reason", null));
                } else {
                    choices.add(Json.obj("index", i, "text", render.text(r), "logprobs", lp, "finish_reason",
                            "length", "stop_reason", null));
                }
            }
            body.put("choices", choices);
            body.put("usage", Usage.of(results, render.n));
            if (render.kvTransfer != null) {
                body.put("kv_transfer_params", render.kvTransfer);
            }
            Json.send(req.response(), 200, body);
        }

        @Override
        public void onError(int status, String message) {
            Json.sendError(req.response(), status, message);
        }
    }

    private final class StreamSink implements GenerationCall.Sink {
        private final HttpServerRequest req;
        private final Render render;
        private final boolean includeUsage;
        private final SseWriter sse;

        StreamSink(HttpServerRequest req, Render render, boolean includeUsage) {
            this.req = req;
            this.render = render;
            this.includeUsage = includeUsage;
            this.sse = new SseWriter(req, ctx.faults().dropAfterChunks(), ctx.stats::recordDroppedConnection);
        }

        @Override
        public void onToken(Job job, SimRequest r, int index, int tokenId) {
            String text = ctx.output.text(tokenId);
            boolean last = index == r.maxTokens() - 1;
            if (!render.logprobs && (index > 0 || !chat) && !(last && render.kvTransfer != null)) {
                sse.eventJson(tokenChunk(render.chunkPrefix(), chat, job.index(), text, last));
                return;
            }
            String finish = last ? "length" : null;
            Object lp = render.logprobsOf(r, index, index + 1);
            Map<String, Object> chunk = render.envelope(chat ? "chat.completion.chunk" : "text_completion");
            if (chat) {
                if (index == 0) {
                    Map<String, Object> first = render.envelope("chat.completion.chunk");
                    first.put("choices", List.of(Json.obj("index", job.index(), "delta",
                            Json.obj("role", "assistant", "content", ""), "logprobs", null, "finish_reason", null)));
                    sse.event(first);
                }
                chunk.put("choices", List.of(Json.obj("index", job.index(), "delta", Json.obj("content", text),
                        "logprobs", lp, "finish_reason", finish)));
            } else {
                chunk.put("choices", List.of(Json.obj("index", job.index(), "text", text, "logprobs", lp,
                        "finish_reason", finish, "stop_reason", null)));
            }
            if (last && render.kvTransfer != null) {
                chunk.put("kv_transfer_params", render.kvTransfer);
            }
            sse.event(chunk);
        }

        @Override
        public void onAllDone(List<SimRequest> results) {
            if (includeUsage) {
                Map<String, Object> chunk = render.envelope(chat ? "chat.completion.chunk" : "text_completion");
                chunk.put("choices", List.of());
                chunk.put("usage", Usage.of(results, render.n));
                sse.event(chunk);
            }
            sse.done();
        }

        @Override
        public void onError(int status, String message) {
            if (!sse.started()) {
                Json.sendError(req.response(), status, message);
                return;
            }
            sse.event(Json.error(status, message));
            sse.done();
        }
    }
}
