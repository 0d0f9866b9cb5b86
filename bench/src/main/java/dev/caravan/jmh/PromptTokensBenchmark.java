package dev.caravan.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.LocalModel;
import dev.caravan.tokens.ModelFiles;

/**
 * The cost of the engine's own tokens on the request path ({@code tokenizePrompt}, docs/tokens.md): a model's chat
 * template rendered on Jinjava ({@code render}); rendered and encoded whole with its tokenizer.json through DJL
 * ({@code chatWhole}, before the chunk cache); rendered and encoded in chunks through the chunk cache, the same body
 * again ({@code chatRepeat}: every chunk a hit) and with a new last user turn each time ({@code chatNewTurn}: the
 * system prompt and earlier turns hit, the new turn is encoded); against the per-request cost with
 * {@code --kv-tokenizer} ({@code routingTextEncode}: Caravan's routing text encoded by the same tokenizer).
 *
 * <p>{@code shape}: a chat with one tool, a short system prompt and 2 or 40 user/assistant turns of ~60 words each;
 * or {@code b2b}, the fleet benchmark's request: a tenant's 2 k-token system prompt (~8 k characters) and a short
 * user turn. {@code model}: the processors module's fixtures (run from the repository root), Qwen3 or Mistral NeMo.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class PromptTokensBenchmark {

    @Param({"2", "40", "b2b"})
    public String shape;

    @Param({"qwen3", "mistral_nemo"})
    public String modelName;

    private LocalModel model;
    private Map<String, Object> body;
    private List<Object> messages;
    private String routingText;
    private long turn;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        model = model(modelName);
        body = body(shape);
        @SuppressWarnings("unchecked")
        List<Object> m = (List<Object>) body.get("messages");
        messages = m;
        routingText = ChatTemplate.render(messages, (List<?>) body.get("tools"));
    }

    /** One of the processors module's model fixtures (run from the repository root), with its own chunk cache. */
    static LocalModel model(String name) throws IOException {
        Path dir = Path.of("models").resolve(name);
        return LocalModel.load(new ModelFiles("bench", dir, null, null), null, EngineDialect.VLLM, Clock.systemUTC());
    }

    /** A chat request body of the given shape (its messages list is mutable: {@link #newTurn}). */
    static Map<String, Object> body(String shape) {
        List<Object> messages = new ArrayList<>();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("messages", messages);
        if (shape.equals("b2b")) {
            messages.add(Map.of("role", "system", "content", "Tenant 7 assistant. " + Prompts.words(7, 8 * 1024)));
            messages.add(Map.of("role", "user", "content", "Q1 " + Prompts.words(1, 200)));
            return body;
        }
        messages.add(Map.of("role", "system", "content", "You plan caravan routes across the desert. Answer briefly."));
        int turns = Integer.parseInt(shape);
        for (int t = 0; t < turns; t++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 60; w++) {
                text.append(Prompts.class.getSimpleName().charAt(w % 7)).append("ord").append(t * 60 + w).append(' ');
            }
            messages.add(Map.of("role", t % 2 == 0 ? "user" : "assistant", "content", text.toString()));
        }
        messages.add(Map.of("role", "user", "content", "And the water on the way?"));
        body.put("tools", List.of(Map.of("type", "function", "function", Map.of("name", "get_weather",
                "description", "Weather for a city", "parameters", Map.of("type", "object", "properties",
                        Map.of("city", Map.of("type", "string")))))));
        return body;
    }

    /** Replaces the last user turn with the {@code n}-th new one. */
    @SuppressWarnings("unchecked")
    static void newTurn(Map<String, Object> body, long n) {
        List<Object> messages = (List<Object>) body.get("messages");
        messages.set(messages.size() - 1, Map.of("role", "user", "content", "Q" + n + " " + Prompts.words(n, 200)));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        model.close();
    }

    @Benchmark
    public String render() {
        return model.render(body);
    }

    /** Before the chunk cache: the rendering encoded whole. */
    @Benchmark
    public int[] chatWhole() {
        return model.encode(model.render(body), false);
    }

    /** The same request again: every chunk from the cache. */
    @Benchmark
    public int[] chatRepeat() {
        return model.chat(body);
    }

    /** A new last user turn each time (the next request of a tenant or a conversation): only it is encoded. */
    @Benchmark
    public int[] chatNewTurn() {
        newTurn(body, ++turn);
        return model.chat(body);
    }

    /** The baseline: what kv_aware does per request with {@code --kv-tokenizer} (encode Caravan's routing text). */
    @Benchmark
    public int[] routingTextEncode() {
        return model.encode(routingText, true);
    }
}
