package dev.caravan.bench.workload;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.caravan.policies.text.ChatTemplate;

/**
 * One request of a workload: when it arrives (simulated time), what it sends, and what the workload knows about it.
 *
 * <p>{@link #renderedText()} is exactly the text the engine tokenizes (the chat template's rendering for chat, the
 * prompt for completions); the benchmark measures ideal prefix reuse on it. Immutable, except that the workload may
 * hang private state on it ({@link #state()}) to build a follow-up turn.
 */
public final class BenchRequest {

    /** OpenAI chat endpoint. */
    public static final String CHAT = "/v1/chat/completions";
    /** OpenAI completions endpoint. */
    public static final String COMPLETIONS = "/v1/completions";

    private final long atNanos;
    private final String path;
    private final List<Map<String, Object>> messages;
    private final String prompt;
    private final String renderedText;
    private final String routingKey;
    private final int maxTokens;
    private final int prefixTokens;
    private final Object state;
    private final String tenant;

    private BenchRequest(long atNanos, String path, List<Map<String, Object>> messages, String prompt,
                         String routingKey, int maxTokens, int prefixTokens, Object state) {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be >= 1, was " + maxTokens);
        }
        this.atNanos = atNanos;
        this.path = path;
        this.messages = messages;
        this.prompt = prompt;
        this.renderedText = messages != null ? ChatTemplate.render(messages, null) : prompt;
        this.routingKey = routingKey;
        this.maxTokens = maxTokens;
        this.prefixTokens = prefixTokens;
        this.state = state;
        this.tenant = null;
    }

    private BenchRequest(BenchRequest r, String tenant) {
        this.atNanos = r.atNanos;
        this.path = r.path;
        this.messages = r.messages;
        this.prompt = r.prompt;
        this.renderedText = r.renderedText;
        this.routingKey = r.routingKey;
        this.maxTokens = r.maxTokens;
        this.prefixTokens = r.prefixTokens;
        this.state = r.state;
        this.tenant = tenant;
    }

    /** This request sent on behalf of {@code tenant} (header {@code X-Caravan-Tenant}, for a tenants file's trust). */
    public BenchRequest withTenant(String tenant) {
        return new BenchRequest(this, tenant);
    }

    /** A chat request; {@code messages} are maps with {@code role} and {@code content}. */
    public static BenchRequest chat(long atNanos, List<Map<String, Object>> messages, String routingKey,
                                    int maxTokens, int prefixTokens, Object state) {
        return new BenchRequest(atNanos, CHAT, List.copyOf(messages), null, routingKey, maxTokens, prefixTokens,
                state);
    }

    /** A completions request with a text prompt. */
    public static BenchRequest completion(long atNanos, String prompt, String routingKey, int maxTokens,
                                          int prefixTokens) {
        return new BenchRequest(atNanos, COMPLETIONS, null, prompt, routingKey, maxTokens, prefixTokens, null);
    }

    /** One chat message. */
    public static Map<String, Object> message(String role, String content) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role);
        m.put("content", content);
        return m;
    }

    /** The JSON body: streaming with usage, {@code max_tokens}, the given model. */
    public Map<String, Object> body(String model) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("model", model);
        if (messages != null) {
            b.put("messages", messages);
        } else {
            b.put("prompt", prompt);
        }
        b.put("max_tokens", maxTokens);
        b.put("stream", true);
        b.put("stream_options", Map.of("include_usage", true));
        return b;
    }

    /** Simulated arrival time, nanoseconds from the start of the workload. */
    public long atNanos() {
        return atNanos;
    }

    public String path() {
        return path;
    }

    public boolean isChat() {
        return messages != null;
    }

    /** Chat messages (null for completions). */
    public List<Map<String, Object>> messages() {
        return messages;
    }

    /** The text the engine tokenizes. */
    public String renderedText() {
        return renderedText;
    }

    /** Tenant or session key, sent as {@code X-SMG-Routing-Key} (consistent hashing, manual, nginx hash). */
    public String routingKey() {
        return routingKey;
    }

    public int maxTokens() {
        return maxTokens;
    }

    /** Tokens of the workload's designated shared prefix (a tenant's system prompt, a RAG preamble), or 0. */
    public int prefixTokens() {
        return prefixTokens;
    }

    /** The tenant sent as {@code X-Caravan-Tenant}, or null to send none. */
    public String tenant() {
        return tenant;
    }

    public Object state() {
        return state;
    }
}
