package dev.caravan.processors.tokens;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerUrl;
import dev.caravan.tokens.EngineDialect;

/**
 * The engine's own {@code POST /tokenize}, asked without blocking: vLLM's takes a chat request's {@code messages}
 * (with {@code tools}, {@code add_generation_prompt}, {@code continue_final_message}, {@code chat_template_kwargs},
 * {@code add_special_tokens} false) or a {@code prompt} ({@code add_special_tokens} true) and answers
 * {@code {"count", "max_model_len", "tokens"}}; SGLang's takes a {@code prompt} only, so a chat request is rendered
 * here first and its rendering encoded without special tokens. The worker asked is one of the model's available
 * workers in turn (any of them tokenizes as the others: one model, one tokenizer).
 *
 * <p>Every call completes within the timeout: with the ids, or exceptionally (no worker, refused, non-200, malformed
 * answer, {@link TimeoutException}). A timed-out call's connection is reset so a hung worker keeps no pooled
 * connection. Thread-safe.
 */
public final class EngineTokenizer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> CHAT_FIELDS = List.of("messages", "tools", "add_generation_prompt",
            "continue_final_message", "chat_template_kwargs", "chat_template", "documents");

    private final Vertx vertx;
    private final HttpClient client;
    private final Function<String, List<Worker>> workers;
    private final EngineDialect dialect;
    private final long timeoutMs;
    private final AtomicInteger next = new AtomicInteger();

    /**
     * @param workers the workers serving a model (the gateway's pools); unavailable ones are skipped
     */
    public EngineTokenizer(Vertx vertx, Function<String, List<Worker>> workers, EngineDialect dialect,
                           long timeoutMs) {
        this.vertx = vertx;
        this.workers = workers;
        this.dialect = dialect;
        this.timeoutMs = timeoutMs;
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setKeepAliveTimeout(30),
                new PoolOptions().setHttp1MaxSize(8));
    }

    /**
     * @param model    the model id sent to the engine (the request's)
     * @param body     the request body
     * @param chat     true for a chat request
     * @param rendered the local rendering of a chat request (needed for SGLang), or null
     * @return the engine's ids; fails when no answer came
     */
    public CompletableFuture<int[]> tokenize(String poolModel, String model, Map<String, Object> body, boolean chat,
                                             String rendered) {
        Map<String, Object> request;
        try {
            request = request(model, body, chat, rendered);
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        Worker worker = pick(poolModel);
        if (worker == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("no available worker for " + poolModel));
        }
        return tokenizeOn(worker, request);
    }

    /** The {@code /tokenize} body for a request, in this engine's API. */
    Map<String, Object> request(String model, Map<String, Object> body, boolean chat, String rendered) {
        Map<String, Object> request = new LinkedHashMap<>();
        if (model != null) {
            request.put("model", model);
        }
        if (chat && dialect == EngineDialect.VLLM) {
            for (String f : CHAT_FIELDS) {
                if (body.containsKey(f)) {
                    request.put(f, body.get(f));
                }
            }
            request.put("add_special_tokens", false);
        } else if (chat) {
            if (rendered == null) {
                throw new IllegalStateException(
                        "SGLang's /tokenize takes no messages and no local chat template is configured");
            }
            request.put("prompt", rendered);
            request.put("add_special_tokens", false);
        } else {
            Object prompt = body.containsKey("prompt") ? body.get("prompt")
                    : body.containsKey("text") ? body.get("text") : body.get("input");
            request.put("prompt", prompt);
            request.put("add_special_tokens", true);
        }
        return request;
    }

    /** Asks one worker; {@code request} is the {@code /tokenize} body. */
    CompletableFuture<int[]> tokenizeOn(Worker worker, Map<String, Object> request) {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(request);
        } catch (JsonProcessingException e) {
            return CompletableFuture.failedFuture(e);
        }
        return post(worker, bytes);
    }

    private Worker pick(String model) {
        List<Worker> available = new ArrayList<>();
        for (Worker w : workers.apply(model)) {
            if (w.isAvailable()) {
                available.add(w);
            }
        }
        if (available.isEmpty()) {
            return null;
        }
        return available.get(Math.floorMod(next.getAndIncrement(), available.size()));
    }

    private CompletableFuture<int[]> post(Worker worker, byte[] body) {
        CompletableFuture<int[]> out = new CompletableFuture<>();
        WorkerUrl target = worker.target();
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(target.host())
                .setPort(target.port()).setSsl(target.ssl()).setURI(target.path() + "/tokenize")
                .setConnectTimeout(timeoutMs).putHeader("Content-Type", "application/json");
        AtomicBoolean finished = new AtomicBoolean();
        AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
        long timer = vertx.setTimer(timeoutMs, id -> {
            if (finished.compareAndSet(false, true)) {
                HttpClientRequest req = sent.get();
                if (req != null) {
                    req.reset();
                }
                out.completeExceptionally(new TimeoutException("no /tokenize answer from " + worker.url()
                        + " within " + timeoutMs + " ms"));
            }
        });
        client.request(options)
                .compose(req -> {
                    sent.set(req);
                    return req.send(Buffer.buffer(body))
                            .compose(resp -> resp.body().map(b -> Map.entry(resp.statusCode(), b)));
                })
                .onComplete(ar -> {
                    vertx.cancelTimer(timer);
                    if (!finished.compareAndSet(false, true)) {
                        return;
                    }
                    if (ar.failed()) {
                        out.completeExceptionally(ar.cause());
                        return;
                    }
                    try {
                        out.complete(parse(worker, ar.result().getKey(), ar.result().getValue()));
                    } catch (RuntimeException e) {
                        out.completeExceptionally(e);
                    }
                });
        return out;
    }

    private static int[] parse(Worker worker, int status, Buffer body) {
        if (status != 200) {
            String text = body.toString();
            throw new IllegalStateException(worker.url() + "/tokenize answered " + status + ": "
                    + (text.length() > 200 ? text.substring(0, 200) + "..." : text));
        }
        JsonNode tokens;
        try {
            tokens = JSON.readTree(body.getBytes()).get("tokens");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(worker.url() + "/tokenize answered malformed JSON: " + e.getMessage());
        }
        if (tokens == null || !tokens.isArray()) {
            throw new IllegalStateException(worker.url() + "/tokenize answered without a tokens array");
        }
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode t = tokens.get(i);
            if (!t.canConvertToInt()) {
                throw new IllegalStateException(worker.url() + "/tokenize answered a non-integer token " + t);
            }
            ids[i] = t.intValue();
        }
        return ids;
    }

    @Override
    public void close() {
        client.close();
    }
}
