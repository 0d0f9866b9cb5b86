package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.engine.SimRequest;

import io.vertx.core.http.HttpServerRequest;

/**
 * The Responses API as an engine serves it: {@code POST /v1/responses} generates from {@code instructions} and
 * {@code input} (a string, or items whose text parts are read), continuing the conversation of
 * {@code previous_response_id} — which must be a response <em>this</em> engine stored (else 404, as an engine that
 * keeps responses in its own memory answers) — and stores the new one unless {@code store} is false;
 * {@code GET /v1/responses/{id}} returns a stored one, {@code DELETE} forgets it ({@code response.deleted}), and
 * {@code POST /v1/responses/{id}/cancel} answers 400 as engines do for a response that already completed (this
 * engine runs none in the background); unknown ids are 404. Non-streamed: one {@code response} object. Streamed:
 * {@code response.created}, one {@code response.output_text.delta} per token, {@code response.completed}, each as a
 * named SSE event, without {@code [DONE]}. At most {@value #MAX_STORED} responses are kept (oldest dropped).
 */
final class ResponsesHandler {

    static final int MAX_STORED = 10_000;

    /** A stored response: the conversation text it ends (for a continuation's prompt) and its JSON. */
    private record Stored(String conversation, Map<String, Object> json) {
    }

    private final EngineContext ctx;
    private final Map<String, Stored> stored = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Stored> eldest) {
            return size() > MAX_STORED;
        }
    };

    ResponsesHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void create(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        StringBuilder conversation = new StringBuilder();
        String previous = Fields.string(body, "previous_response_id");
        if (previous != null) {
            Stored before = stored.get(previous);
            if (before == null) {
                Json.sendError(req.response(), 404, "Previous response with id '" + previous + "' not found.");
                return;
            }
            conversation.append(before.conversation()).append('\n');
        }
        String instructions = Fields.string(body, "instructions");
        if (instructions != null) {
            conversation.append(instructions).append('\n');
        }
        conversation.append(inputText(body.get("input")));
        int[] prompt = ctx.text.tokenizer().encode(conversation.toString(), true);
        int maxTokens = Fields.integer(body, "max_output_tokens", ctx.config.defaultMaxTokens(), 1,
                ctx.config.maxModelLen());
        Limits.lengths(ctx, List.of(prompt), maxTokens);
        boolean stream = Fields.bool(body, "stream", false);
        boolean store = Fields.bool(body, "store", true);
        String id = ctx.nextId("resp_");
        String messageId = ctx.nextId("msg_");
        SseWriter sse = stream ? new SseWriter(req, ctx.faults().dropAfterChunks(), ctx.stats::recordDroppedConnection)
                : null;
        if (sse != null) {
            sse.namedEvent("response.created", Json.obj("type", "response.created", "sequence_number", 0,
                    "response", response(id, previous, "in_progress", List.of(), null)));
        }
        new GenerationCall(ctx, req, List.of(new Job(0, prompt, maxTokens, null, null)), new GenerationCall.Sink() {
            private int sequence = 1;

            @Override
            public void onToken(Job job, SimRequest r, int index, int tokenId) {
                if (sse != null) {
                    sse.namedEvent("response.output_text.delta", Json.obj("type", "response.output_text.delta",
                            "sequence_number", sequence++, "item_id", messageId, "output_index", 0,
                            "content_index", 0, "delta", ctx.output.text(tokenId)));
                }
            }

            @Override
            public void onAllDone(List<SimRequest> results) {
                SimRequest r = results.get(0);
                StringBuilder text = new StringBuilder();
                for (int t : r.outputTokens()) {
                    text.append(ctx.output.text(t));
                }
                List<Object> output = List.of(Json.obj("type", "message", "id", messageId, "status", "completed",
                        "role", "assistant", "content", List.of(Json.obj("type", "output_text", "text",
                                text.toString(), "annotations", List.of()))));
                Map<String, Object> usage = Json.obj("input_tokens", r.promptTokens(), "input_tokens_details",
                        Json.obj("cached_tokens", r.cachedTokens()), "output_tokens", r.generated(),
                        "total_tokens", r.promptTokens() + r.generated());
                Map<String, Object> json = response(id, previous, "completed", output, usage);
                if (store) {
                    stored.put(id, new Stored(conversation + "\n" + text, json));
                }
                if (sse == null) {
                    Json.send(req.response(), 200, json);
                } else {
                    sse.namedEvent("response.completed", Json.obj("type", "response.completed", "sequence_number",
                            sequence, "response", json));
                    sse.end();
                }
            }

            @Override
            public void onError(int status, String message) {
                if (sse == null || !sse.started()) {
                    Json.sendError(req.response(), status, message);
                } else {
                    sse.namedEvent("error", Json.obj("type", "error", "code", status, "message", message));
                    sse.end();
                }
            }
        }).start();
    }

    void retrieve(HttpServerRequest req, String id) {
        Stored s = stored.get(id);
        if (s == null) {
            Json.sendError(req.response(), 404, "Response with id '" + id + "' not found.");
        } else {
            Json.send(req.response(), 200, s.json());
        }
    }

    void delete(HttpServerRequest req, String id) {
        if (stored.remove(id) == null) {
            Json.sendError(req.response(), 404, "Response with id '" + id + "' not found.");
        } else {
            Json.send(req.response(), 200, Json.obj("id", id, "object", "response.deleted", "deleted", true));
        }
    }

    void cancel(HttpServerRequest req, String id) {
        if (!stored.containsKey(id)) {
            Json.sendError(req.response(), 404, "Response with id '" + id + "' not found.");
        } else {
            Json.sendError(req.response(), 400, "Cannot cancel a synchronous response.");
        }
    }

    private Map<String, Object> response(String id, String previous, String status, List<Object> output,
                                         Map<String, Object> usage) {
        return Json.obj("id", id, "object", "response", "created_at", ctx.createdSeconds(), "status", status,
                "model", ctx.config.model(), "output", output, "previous_response_id", previous, "usage", usage);
    }

    /** The text of {@code input}: a string, or the text parts of its items joined by newlines. */
    private static String inputText(Object input) {
        if (input instanceof String s) {
            return s;
        }
        if (!(input instanceof List<?> items)) {
            throw new BadRequest("input must be a string or an array of items, was " + Json.string(input));
        }
        List<String> parts = new ArrayList<>();
        for (Object o : items) {
            if (!(o instanceof Map<?, ?> item)) {
                throw new BadRequest("input items must be objects, was " + Json.string(o));
            }
            Object content = item.get("content");
            if (content instanceof String s) {
                parts.add(s);
            } else if (content instanceof List<?> list) {
                for (Object p : list) {
                    if (p instanceof Map<?, ?> part && part.get("text") instanceof String t) {
                        parts.add(t);
                    }
                }
            } else if (item.get("output") instanceof String out) {
                parts.add(out);
            }
        }
        return String.join("\n", parts);
    }
}
