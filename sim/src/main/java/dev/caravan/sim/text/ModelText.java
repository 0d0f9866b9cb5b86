package dev.caravan.sim.text;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * An engine's tokenizer and chat template, as the engine loads them from a Hugging Face model directory.
 *
 * <ul>
 *   <li>{@link #synthetic}: the simulator's {@link SyntheticTokenizer} and {@link DefaultChatTemplate};</li>
 *   <li>{@link #load}: {@code tokenizer.json} (the path itself, or inside the given directory), and beside it
 *       {@code tokenizer_config.json}'s {@code chat_template} (a string, or a list of named templates of which
 *       {@code default} or the first is used) or a {@code chat_template.jinja} file, with the special tokens
 *       ({@code bos_token}, {@code eos_token}, {@code unk_token}, {@code pad_token}) templates may use. A
 *       {@code chatTemplate} file overrides both, as vLLM's {@code --chat-template} does. A model without any chat
 *       template has a null {@link #chatTemplate}: chat requests are then refused, as vLLM refuses them.</li>
 * </ul>
 *
 * @param tokenizer    encodes prompts
 * @param chatTemplate renders chat requests, or null when the model has none
 */
public record ModelText(EngineTokenizer tokenizer, ChatRenderer chatTemplate) implements AutoCloseable {

    /** vLLM's answer to a chat request for a model without a chat template. */
    public static final String NO_CHAT_TEMPLATE = "As of transformers v4.44, default chat template is no longer "
            + "allowed, so you must provide a chat template if the tokenizer does not define one.";

    private static final List<String> SPECIAL_TOKENS = List.of("bos_token", "eos_token", "unk_token", "pad_token");

    public static ModelText synthetic(int charsPerToken) {
        return new ModelText(new SyntheticTokenizer(charsPerToken), new DefaultChatTemplate());
    }

    /**
     * @param tokenizerPath a {@code tokenizer.json} file, or a directory holding one
     * @param chatTemplate  a Jinja file overriding the model's template, or null
     * @throws IOException when a file is missing or unreadable
     */
    public static ModelText load(Path tokenizerPath, Path chatTemplate) throws IOException {
        Path json = Files.isDirectory(tokenizerPath) ? tokenizerPath.resolve("tokenizer.json") : tokenizerPath;
        Path dir = json.toAbsolutePath().getParent();
        EngineTokenizer tokenizer = new HfEngineTokenizer(json);
        try {
            Map<String, String> special = new LinkedHashMap<>();
            String template = null;
            String source = null;
            Path config = dir.resolve("tokenizer_config.json");
            if (Files.isRegularFile(config)) {
                JsonNode c = new ObjectMapper().readTree(config.toFile());
                for (String name : SPECIAL_TOKENS) {
                    String v = tokenText(c.get(name));
                    if (v != null) {
                        special.put(name, v);
                    }
                }
                template = templateText(c.get("chat_template"));
                source = template == null ? null : config.toString();
            }
            Path jinja = dir.resolve("chat_template.jinja");
            if (template == null && Files.isRegularFile(jinja)) {
                template = Files.readString(jinja);
                source = jinja.toString();
            }
            if (chatTemplate != null) {
                template = Files.readString(chatTemplate);
                source = chatTemplate.toString();
            }
            ChatRenderer renderer = template == null ? null : new JinjaChatTemplate(template, special, source);
            return new ModelText(tokenizer, renderer);
        } catch (IOException | RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    private static String tokenText(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        return v.isTextual() ? v.asText() : v.path("content").asText(null);
    }

    private static String templateText(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isTextual()) {
            return v.asText();
        }
        if (v.isArray() && !v.isEmpty()) {
            for (JsonNode t : v) {
                if ("default".equals(t.path("name").asText())) {
                    return t.path("template").asText();
                }
            }
            return v.get(0).path("template").asText();
        }
        return null;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
