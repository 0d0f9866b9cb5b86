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
import dev.caravan.processors.tokens.EngineDialect;
import dev.caravan.processors.tokens.LocalModel;
import dev.caravan.processors.tokens.ModelFiles;

/**
 * The cost of the engine's own tokens on the request path ({@code tokenizePrompt}, docs/tokens.md): Qwen3's chat
 * template rendered on Jinjava ({@code render}) and rendered + encoded with its tokenizer.json through DJL
 * ({@code chat}), against today's per-request cost with {@code --kv-tokenizer} ({@code routingTextEncode}: Caravan's
 * routing text encoded by the same tokenizer), for a chat with one tool and {@code turns} user/assistant turns of ~60 words each. The model
 * directory is the system property {@code caravan.model} (default: the processors module's Qwen3 fixture, run from
 * the repository root).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class PromptTokensBenchmark {

    @Param({"2", "40"})
    public int turns;

    private LocalModel model;
    private Map<String, Object> body;
    private String routingText;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path dir = Path.of(System.getProperty("caravan.model", "processors/src/test/resources/models/qwen3"));
        model = LocalModel.load(new ModelFiles("bench", dir, null, null), null, EngineDialect.VLLM, Clock.systemUTC());
        List<Object> messages = new ArrayList<>();
        messages.add(Map.of("role", "system", "content", "You plan caravan routes across the desert. Answer briefly."));
        for (int t = 0; t < turns; t++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 60; w++) {
                text.append(Prompts.class.getSimpleName().charAt(w % 7)).append("ord").append(t * 60 + w).append(' ');
            }
            messages.add(Map.of("role", t % 2 == 0 ? "user" : "assistant", "content", text.toString()));
        }
        messages.add(Map.of("role", "user", "content", "And the water on the way?"));
        body = new LinkedHashMap<>();
        body.put("messages", messages);
        body.put("tools", List.of(Map.of("type", "function", "function", Map.of("name", "get_weather",
                "description", "Weather for a city", "parameters", Map.of("type", "object", "properties",
                        Map.of("city", Map.of("type", "string")))))));
        routingText = ChatTemplate.render(messages, (List<?>) body.get("tools"));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        model.close();
    }

    @Benchmark
    public String render() {
        return model.render(body);
    }

    @Benchmark
    public int[] chat() {
        return model.chat(body);
    }

    /** The baseline: what kv_aware does per request with {@code --kv-tokenizer} (encode Caravan's routing text). */
    @Benchmark
    public int[] routingTextEncode() {
        return model.encode(routingText, true);
    }
}
